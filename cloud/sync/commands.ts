/**
 * Staff commands for a locker's agent, as durable rows: whoever asks (the operator CLI, another
 * process) writes one; every running cloud process publishes what is pending; the agent
 * answers on `responses` and executes a redelivered command only once. A command not carried
 * out in time expires: a cell must not spring open long after staff asked and left.
 */
import { CONTRACT_VERSION, type CommandMessage, type ResponseMessage } from '../../shared/mqtt/index.ts';
import type { Db } from '../storage/database.ts';
import { prepared } from '../storage/prepared.ts';
import type { LockerCommandTable } from './types.ts';

const OPEN: Array<LockerCommandTable['state']> = ['PENDING', 'SENT'];

export function commandMessage(c: LockerCommandTable): CommandMessage {
  return {
    v: CONTRACT_VERSION,
    commandId: c.id,
    type: 'OPEN_CELL',
    cellId: c.cellId,
    orderId: c.orderId ?? undefined,
    expiresAt: c.expiresAt,
  };
}

// The publisher asks several times a second: these reads are prepared once (prepared.ts), not rebuilt per poll.
const expiredCommands = prepared<[at: string], { id: string }>(1, (db: Db, at) =>
  db.selectFrom('locker_command').select('id').where('state', 'in', OPEN).where('expiresAt', '<=', at),
);
const commandsOfLocker = prepared<[postomatId: string], LockerCommandTable>(1, (db: Db, postomatId) =>
  db
    .selectFrom('locker_command')
    .selectAll()
    .where('state', 'in', OPEN)
    .where('postomatId', '=', postomatId)
    .orderBy('createdAt')
    .limit(500),
);
/**
 * Open commands due for a send. Read from the index of open commands alone: asking "which
 * lockers are online" first walked every locker's link on every poll, a cost that grew with
 * the fleet while there was nothing to send.
 */
const PAGE = 500;
const openCommandsDue = prepared<[resendBefore: string, offset: number], LockerCommandTable>(
  2,
  (db: Db, resendBefore, offset) =>
    db
      .selectFrom('locker_command')
      .selectAll()
      .where('state', 'in', OPEN)
      .where((eb) => eb.or([eb('state', '=', 'PENDING'), eb('sentAt', '<=', resendBefore)]))
      .orderBy('createdAt')
      .orderBy('id')
      .limit(PAGE)
      .offset(offset),
);

/**
 * An offline locker gets its commands when it comes back (and they stay PENDING meanwhile):
 * pages of open commands are read until a page's worth is due at online lockers.
 */
async function commandsOfOnlineLockers(db: Db, resendBefore: string): Promise<LockerCommandTable[]> {
  const out: LockerCommandTable[] = [];
  for (let offset = 0; out.length < PAGE; offset += PAGE) {
    const due = await openCommandsDue(db, resendBefore, offset);
    if (!due.length) break;
    const lockers = [...new Set(due.map((c) => c.postomatId))];
    const online = await db
      .selectFrom('locker_link')
      .select('postomatId')
      .where('postomatId', 'in', lockers)
      .where('online', '=', 1)
      .execute();
    const isOnline = new Set(online.map((l) => l.postomatId));
    out.push(...due.filter((c) => isOnline.has(c.postomatId)));
    if (due.length < PAGE) break;
  }
  return out;
}

/**
 * Commands to publish now, to lockers that are online: pending ones, and sent ones still
 * unanswered after `resendAfterMs` (a process died between claiming and publishing, or the
 * message was lost with the connection). Expired ones are closed first. With `postomatId`,
 * every unanswered command of that locker (it has just come back).
 */
export async function commandsDue(
  db: Db,
  now: Date,
  resendAfterMs: number,
  postomatId?: string,
): Promise<LockerCommandTable[]> {
  // Read first: a write would take SQLite's write lock on every poll.
  const expired = await expiredCommands(db, now.toISOString());
  if (expired.length) {
    await db
      .updateTable('locker_command')
      .set({ state: 'EXPIRED' })
      .where(
        'id',
        'in',
        expired.map((c) => c.id),
      )
      .where('state', 'in', OPEN)
      .execute();
  }
  return postomatId
    ? commandsOfLocker(db, postomatId)
    : commandsOfOnlineLockers(db, new Date(now.getTime() - resendAfterMs).toISOString());
}

/** Claims a send: false when another process sent it in the meantime. */
export async function markSent(db: Db, c: LockerCommandTable, now: Date): Promise<boolean> {
  const res = await db
    .updateTable('locker_command')
    .set({ state: 'SENT', sentAt: now.toISOString(), attempts: c.attempts + 1 })
    .where('id', '=', c.id)
    .where('attempts', '=', c.attempts)
    .where('state', 'in', OPEN)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The agent's answer; only the locker the command was for may answer it. */
export async function recordResponse(db: Db, postomatId: string, r: ResponseMessage, now: Date): Promise<boolean> {
  const res = await db
    .updateTable('locker_command')
    .set({
      state: r.status === 'ok' ? 'DONE' : 'FAILED',
      answeredAt: now.toISOString(),
      error: r.status === 'error' ? r.error.slice(0, 500) : null,
    })
    .where('id', '=', r.commandId)
    .where('postomatId', '=', postomatId)
    .where('state', 'in', OPEN)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
