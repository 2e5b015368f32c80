/**
 * What a locker's agent says about itself: its connection (a retained message, and the Last
 * Will the broker publishes when the agent vanishes) and its cells. Stored for the operator
 * (`locker status`) and mirrored into the spec's fields: postomat.isConnected, cell.isOpen (the
 * rows: storage/locker-link-queries.ts, cell-queries.ts).
 */
import type { CellsMessage, ConnectionMessage } from '../../shared/mqtt/index.ts';
import { setCellsOpen } from '../storage/cell-queries.ts';
import type { Db } from '../storage/database.ts';
import { lockerConnection, setPostomatConnected, upsertLockerLink } from '../storage/locker-link-queries.ts';
import { existingPostomatId } from '../storage/postomat-queries.ts';

export async function lockerExists(db: Db, postomatId: string): Promise<boolean> {
  return (await existingPostomatId(db, postomatId)) !== undefined;
}

/** A time a device reports, kept no later than the cloud's clock: a device's clock proves nothing. */
export function deviceTime(at: string, now: Date): string {
  return new Date(Math.min(Date.parse(at), now.getTime())).toISOString();
}

/**
 * Connection messages take effect in the order the cloud receives them (inbound.ts handles one
 * locker's messages one at a time), never in the order of the device's clock: a single message
 * dated in 2030 once made every later announcement, Last Will and resync look old, for good.
 * One case is still told by `at`: an "offline" dated before the connection the cloud holds as
 * online is the Last Will of an earlier connection (a Will carries the time of the connection
 * it guarded), delivered after the agent came back: it returns false. Both times are the same
 * device's, and `at` is kept no later than the cloud's clock, so a forged future time cannot
 * make the next Will look old either; the next announcement always takes effect.
 */
export async function recordConnection(
  db: Db,
  postomatId: string,
  msg: ConnectionMessage,
  now: Date,
): Promise<boolean> {
  const at = deviceTime(msg.at, now);
  return db.transaction().execute(async (trx) => {
    const prev = await lockerConnection(trx, postomatId);
    if (!msg.online && prev?.online === 1 && prev.connectionAt && at < prev.connectionAt) return false;
    const set = {
      online: msg.online ? 1 : 0,
      agentVersion: msg.agentVersion,
      reportedVersion: msg.syncVersion,
      connectionAt: at,
      updatedAt: now.toISOString(),
    };
    await upsertLockerLink(trx, postomatId, set);
    await setPostomatConnected(trx, postomatId, set.online);
    return true;
  });
}

/** Cell numbers per statement: far below SQLite's limit on bound values, whatever the report holds. */
const CELL_CHUNK = 500;

/** Keeps the last report whole, and the spec's `isOpen` of each cell (by number) in step. */
export async function recordCells(db: Db, postomatId: string, msg: CellsMessage, now: Date): Promise<void> {
  const set = { cells: JSON.stringify(msg.cells), cellsAt: deviceTime(msg.at, now), updatedAt: now.toISOString() };
  const numbers = (open: boolean) =>
    msg.cells.filter((c) => c.lockClosed === !open && /^\d{1,9}$/.test(c.cellId)).map((c) => Number(c.cellId));
  await db.transaction().execute(async (trx) => {
    await upsertLockerLink(trx, postomatId, set);
    for (const [flag, list] of [
      [1, numbers(true)],
      [0, numbers(false)],
    ] as const) {
      for (let i = 0; i < list.length; i += CELL_CHUNK) {
        await setCellsOpen(trx, postomatId, flag, list.slice(i, i + CELL_CHUNK), set.updatedAt);
      }
    }
  });
}
