/**
 * What a locker's agent says about itself (`locker_link`: its connection and its cells report),
 * the spec's `postomat.isConnected` kept in step with it, and the agent's password hash its MQTT
 * login is checked against. The rules of which message counts are sync/link-state.ts's.
 */
import type { Db } from './database.ts';
import type { LockerLinkTable } from './locker-link-schema.ts';

/** The agent password hash the operator CLI stored for the locker, if any. */
export function agentSecretHashOf(db: Db, postomatId: string) {
  return db.selectFrom('postomat').select('agentSecretHash').where('id', '=', postomatId).executeTakeFirst();
}

/** The locker's link as last reported, whole. */
export function lockerLinkOf(db: Db, postomatId: string) {
  return db.selectFrom('locker_link').selectAll().where('postomatId', '=', postomatId).executeTakeFirst();
}

/** The connection the cloud holds for the locker, if it ever had one. */
export function lockerConnection(db: Db, postomatId: string) {
  return db
    .selectFrom('locker_link')
    .select(['online', 'connectionAt'])
    .where('postomatId', '=', postomatId)
    .executeTakeFirst();
}

/** Those of `postomatIds` whose agent is connected now. */
export function onlineLockersAmong(db: Db, postomatIds: string[]) {
  return db
    .selectFrom('locker_link')
    .select('postomatId')
    .where('postomatId', 'in', postomatIds)
    .where('online', '=', 1)
    .execute();
}

const emptyLink = (postomatId: string, at: string) => ({
  postomatId,
  online: 0,
  agentVersion: null,
  reportedVersion: null,
  connectionAt: null,
  cells: null,
  cellsAt: null,
  updatedAt: at,
});

/** Writes what the agent reported (`set`), over the locker's link or as its first one. */
export async function upsertLockerLink(
  db: Db,
  postomatId: string,
  set: Partial<Omit<LockerLinkTable, 'postomatId'>> & { updatedAt: string },
): Promise<void> {
  await db
    .insertInto('locker_link')
    .values({ ...emptyLink(postomatId, set.updatedAt), ...set })
    .onConflict((oc) => oc.column('postomatId').doUpdateSet(set))
    .execute();
}

/** The spec's `postomat.isConnected`, mirrored from the link. */
export async function setPostomatConnected(db: Db, postomatId: string, online: number): Promise<void> {
  await db.updateTable('postomat').set({ isConnected: online }).where('id', '=', postomatId).execute();
}
