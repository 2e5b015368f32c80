/**
 * What a locker's agent says about itself: its connection (a retained message, and the Last
 * Will the broker publishes when the agent vanishes) and its cells. Stored for the operator
 * (`locker status`) and mirrored into the spec's fields: postomat.isConnected, cell.isOpen.
 */
import type { CellsMessage, ConnectionMessage } from '../../shared/mqtt/index.ts';
import type { Db } from '../storage/database.ts';

export async function lockerExists(db: Db, postomatId: string): Promise<boolean> {
  return (await db.selectFrom('postomat').select('id').where('id', '=', postomatId).executeTakeFirst()) !== undefined;
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

/**
 * Returns false for a message older than the one stored: a Last Will carries the time of the
 * connection it guarded, so one delivered after the agent came back must not mark it offline.
 */
export async function recordConnection(db: Db, postomatId: string, msg: ConnectionMessage, now: Date): Promise<boolean> {
  const at = new Date(msg.at).toISOString();
  return db.transaction().execute(async (trx) => {
    const prev = await trx.selectFrom('locker_link').select('connectionAt').where('postomatId', '=', postomatId).executeTakeFirst();
    if (prev?.connectionAt && prev.connectionAt > at) return false;
    const set = { online: msg.online ? 1 : 0, agentVersion: msg.agentVersion, reportedVersion: msg.syncVersion, connectionAt: at, updatedAt: now.toISOString() };
    await trx
      .insertInto('locker_link')
      .values({ ...emptyLink(postomatId, set.updatedAt), ...set })
      .onConflict((oc) => oc.column('postomatId').doUpdateSet(set))
      .execute();
    await trx.updateTable('postomat').set({ isConnected: set.online }).where('id', '=', postomatId).execute();
    return true;
  });
}

/** Keeps the last report whole, and the spec's `isOpen` of each cell (by number) in step. */
export async function recordCells(db: Db, postomatId: string, msg: CellsMessage, now: Date): Promise<void> {
  const set = { cells: JSON.stringify(msg.cells), cellsAt: new Date(msg.at).toISOString(), updatedAt: now.toISOString() };
  const numbers = (open: boolean) => msg.cells.filter((c) => c.lockClosed === !open && /^\d+$/.test(c.cellId)).map((c) => Number(c.cellId));
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('locker_link')
      .values({ ...emptyLink(postomatId, set.updatedAt), ...set })
      .onConflict((oc) => oc.column('postomatId').doUpdateSet(set))
      .execute();
    for (const [flag, list] of [[1, numbers(true)], [0, numbers(false)]] as const) {
      if (!list.length) continue;
      await trx
        .updateTable('cell')
        .set({ isOpen: flag, updatedAt: set.updatedAt })
        .where('postomatId', '=', postomatId)
        .where('number', 'in', list)
        .where('isOpen', '!=', flag)
        .execute();
    }
  });
}
