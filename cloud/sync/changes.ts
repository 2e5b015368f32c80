/**
 * The one call every service makes when it changes what a locker's agent must know about an
 * order (created, paid, placed, finished, moved to another locker): inside the caller's
 * transaction, so the change and its record commit together and survive a cloud crash before
 * anything was published.
 */
import type { Db } from '../storage/database.ts';

/** Bumps the locker's sync version and stamps the order's change with it; returns the version. */
export async function recordLockerChange(trx: Db, postomatId: string, orderId: string): Promise<number> {
  // On PostgreSQL the upsert locks the locker's row until commit: versions of one locker are
  // handed out in commit order, so a reader that sees version N also sees every change <= N.
  const { version } = await trx
    .insertInto('locker_sync')
    .values({ postomatId, version: 1, publishedVersion: 0, floor: 0 })
    .onConflict((oc) => oc.column('postomatId').doUpdateSet((eb) => ({ version: eb('locker_sync.version', '+', 1) })))
    .returning('version')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('locker_sync_change')
    .values({ postomatId, orderId, version })
    .onConflict((oc) => oc.columns(['postomatId', 'orderId']).doUpdateSet({ version }))
    .execute();
  return Number(version);
}

/**
 * The locker's cells changed (added, resized, switched on or off): its version moves with no
 * order change, so the publisher sends its agent a delta, which carries the new cell map.
 */
export async function recordCellMapChange(db: Db, postomatId: string): Promise<number> {
  const { version } = await db
    .insertInto('locker_sync')
    .values({ postomatId, version: 1, publishedVersion: 0, floor: 0 })
    .onConflict((oc) => oc.column('postomatId').doUpdateSet((eb) => ({ version: eb('locker_sync.version', '+', 1) })))
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(version);
}
