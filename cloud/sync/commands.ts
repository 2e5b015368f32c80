/**
 * Staff commands for a locker's agent, as durable rows: whoever asks (the operator CLI, another
 * process) writes one; every running cloud process publishes what is pending; the agent
 * answers on `responses` and executes a redelivered command only once. A command not carried
 * out in time expires: a cell must not spring open long after staff asked and left. The rows:
 * storage/locker-command-queries.ts (claimed with `markSent`, answered with `recordResponse`).
 */
import { CONTRACT_VERSION, type CommandMessage } from '../../shared/mqtt/index.ts';
import type { Db } from '../storage/database.ts';
import {
  commandsOfLocker,
  expireCommands,
  expiredCommands,
  OPEN_COMMANDS_PAGE,
  openCommandsDue,
} from '../storage/locker-command-queries.ts';
import { onlineLockersAmong } from '../storage/locker-link-queries.ts';
import type { LockerCommandTable } from './types.ts';

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

/**
 * An offline locker gets its commands when it comes back (and they stay PENDING meanwhile):
 * pages of open commands are read until a page's worth is due at online lockers.
 */
async function commandsOfOnlineLockers(db: Db, resendBefore: string): Promise<LockerCommandTable[]> {
  const out: LockerCommandTable[] = [];
  for (let offset = 0; out.length < OPEN_COMMANDS_PAGE; offset += OPEN_COMMANDS_PAGE) {
    const due = await openCommandsDue(db, resendBefore, offset);
    if (!due.length) break;
    const lockers = [...new Set(due.map((c) => c.postomatId))];
    const online = await onlineLockersAmong(db, lockers);
    const isOnline = new Set(online.map((l) => l.postomatId));
    out.push(...due.filter((c) => isOnline.has(c.postomatId)));
    if (due.length < OPEN_COMMANDS_PAGE) break;
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
    await expireCommands(
      db,
      expired.map((c) => c.id),
    );
  }
  return postomatId
    ? commandsOfLocker(db, postomatId)
    : commandsOfOnlineLockers(db, new Date(now.getTime() - resendAfterMs).toISOString());
}
