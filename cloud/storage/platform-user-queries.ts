/**
 * Platform users and their refresh tokens. A refresh token works once: it is stamped `usedAt`
 * by a conditional update, so of two concurrent refreshes with one token only one succeeds.
 */
import type { Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { PlatformDatabase } from './platform-schema.ts';

/** Active users of active companies: who may sign in, refresh, and be named by an access token. */
function activeUser(db: Db) {
  return db
    .selectFrom('platform_user as u')
    .innerJoin('platform_company as c', 'c.id', 'u.companyId')
    .select(['u.id', 'u.passwordHash', 'u.role', 'u.companyId', 'c.type as companyType'])
    .where('u.isActive', '=', 1)
    .where('c.isActive', '=', 1);
}

export function findActiveUserByEmail(db: Db, email: string) {
  return activeUser(db).where('u.email', '=', email).executeTakeFirst();
}

export function findActiveUserById(db: Db, id: number) {
  return activeUser(db).where('u.id', '=', id).executeTakeFirst();
}

export async function insertRefreshToken(db: Db, token: Insertable<PlatformDatabase['refresh_token']>): Promise<void> {
  await db.insertInto('refresh_token').values(token).execute();
}

/** Stamps the user's token used if it is unused and unexpired at `at`; true when this call did. */
export async function useRefreshToken(db: Db, id: string, userId: number, at: string): Promise<boolean> {
  const used = await db
    .updateTable('refresh_token')
    .set({ usedAt: at })
    .where('id', '=', id)
    .where('userId', '=', userId)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', at)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) === 1;
}

/** Ends every refresh token of the user issued so far. */
export async function endRefreshTokensOf(db: Db, userId: number, at: string): Promise<void> {
  await db
    .updateTable('refresh_token')
    .set({ usedAt: at })
    .where('userId', '=', userId)
    .where('usedAt', 'is', null)
    .execute();
}

export function findUserIdByEmail(db: Db, email: string) {
  return db.selectFrom('platform_user').select('id').where('email', '=', email).executeTakeFirst();
}

export function insertPlatformUser(db: Db, user: Insertable<PlatformDatabase['platform_user']>) {
  return db.insertInto('platform_user').values(user).returningAll().executeTakeFirstOrThrow();
}

/** The changed user, or undefined when there is none with this id. */
export function updatePlatformUserRow(db: Db, id: number, changes: Updateable<PlatformDatabase['platform_user']>) {
  return db.updateTable('platform_user').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export function listPlatformUserRows(db: Db, companyId?: number) {
  let q = db.selectFrom('platform_user').selectAll().orderBy('id');
  if (companyId !== undefined) q = q.where('companyId', '=', companyId);
  return q.execute();
}
