/** The Locker API's keys: who a key belongs to, and the keys the operator issues and revokes. */
import type { Db } from './database.ts';
import type { LockerApiKeyTable } from './schema.ts';

/** Who a key belongs to, by its hash; a key of an inactive company belongs to no one. */
export function callerOfKey(db: Db, keyHash: string) {
  return db
    .selectFrom('locker_api_key as k')
    .innerJoin('locker_company as c', 'c.id', 'k.companyId')
    .select(['k.id as keyId', 'k.companyId'])
    .where('k.keyHash', '=', keyHash)
    .where('c.isActive', '=', 1)
    .executeTakeFirst();
}

export async function apiKeyCountOf(db: Db, companyId: string): Promise<number> {
  const keys = await db
    .selectFrom('locker_api_key')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('companyId', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(keys.n);
}

/** A company's keys without their hashes, oldest first. */
export function apiKeysOf(db: Db, companyId: string) {
  return db
    .selectFrom('locker_api_key')
    .select(['id', 'companyId', 'title', 'keyPrefix', 'createdAt'])
    .where('companyId', '=', companyId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

export async function insertLockerApiKey(db: Db, row: LockerApiKeyTable): Promise<void> {
  await db.insertInto('locker_api_key').values(row).execute();
}

/** Whether there was such a key. */
export async function deleteLockerApiKey(db: Db, keyId: string): Promise<boolean> {
  const res = await db.deleteFrom('locker_api_key').where('id', '=', keyId).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}
