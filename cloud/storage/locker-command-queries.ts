/**
 * Staff commands for a locker's agent: queued by services, and read, claimed for a send,
 * answered and expired by the locker link (whose rules are sync/commands.ts's).
 */
import type { ResponseMessage } from '../../shared/mqtt/index.ts';
import type { Db } from './database.ts';
import type { LockerCommandTable } from './locker-link-schema.ts';
import { prepared } from './prepared.ts';

const OPEN: Array<LockerCommandTable['state']> = ['PENDING', 'SENT'];

/** The order's command in one of the `open` states that has not expired at `at`. */
export function openCommandOfOrder(db: Db, orderId: string, open: Array<LockerCommandTable['state']>, at: string) {
  return db
    .selectFrom('locker_command')
    .selectAll()
    .where('orderId', '=', orderId)
    .where('state', 'in', open)
    .where('expiresAt', '>', at)
    .executeTakeFirst();
}

export async function insertLockerCommand(db: Db, command: LockerCommandTable): Promise<void> {
  await db.insertInto('locker_command').values(command).execute();
}

// The publisher asks several times a second: these reads are prepared once (prepared.ts), not rebuilt per poll.
export const expiredCommands = prepared<[at: string], { id: string }>(1, (db: Db, at) =>
  db.selectFrom('locker_command').select('id').where('state', 'in', OPEN).where('expiresAt', '<=', at),
);
export const commandsOfLocker = prepared<[postomatId: string], LockerCommandTable>(1, (db: Db, postomatId) =>
  db
    .selectFrom('locker_command')
    .selectAll()
    .where('state', 'in', OPEN)
    .where('postomatId', '=', postomatId)
    .orderBy('createdAt')
    .limit(500),
);
/**
 * Open commands due for a send, a page at `offset`. Read from the index of open commands alone:
 * asking "which lockers are online" first walked every locker's link on every poll, a cost that
 * grew with the fleet while there was nothing to send.
 */
export const OPEN_COMMANDS_PAGE = 500;
export const openCommandsDue = prepared<[resendBefore: string, offset: number], LockerCommandTable>(
  2,
  (db: Db, resendBefore, offset) =>
    db
      .selectFrom('locker_command')
      .selectAll()
      .where('state', 'in', OPEN)
      .where((eb) => eb.or([eb('state', '=', 'PENDING'), eb('sentAt', '<=', resendBefore)]))
      .orderBy('createdAt')
      .orderBy('id')
      .limit(OPEN_COMMANDS_PAGE)
      .offset(offset),
);

/** Closes the open commands among `ids` as EXPIRED. */
export async function expireCommands(db: Db, ids: string[]): Promise<void> {
  await db
    .updateTable('locker_command')
    .set({ state: 'EXPIRED' })
    .where('id', 'in', ids)
    .where('state', 'in', OPEN)
    .execute();
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

/** The locker's latest commands, newest first, for the operator. */
export function recentCommandsOf(db: Db, postomatId: string) {
  return db
    .selectFrom('locker_command')
    .selectAll()
    .where('postomatId', '=', postomatId)
    .orderBy('createdAt', 'desc')
    .limit(10)
    .execute();
}
