/**
 * Staff commands for a locker's agent, queued as durable rows in the caller's unit of work;
 * the locker link (sync/commands.ts) sends them, and a running cloud is woken after the
 * commit to do so at once. A command not carried out in time expires: a cell must not spring
 * open long after staff asked and left.
 */
import { DomainError } from '../domain/errors.ts';
import { newId } from '../storage/ids.ts';
import { cellNumberOf } from '../storage/cell-queries.ts';
import { insertLockerCommand, openCommandOfOrder } from '../storage/locker-command-queries.ts';
import type { LockerCommandTable } from '../storage/locker-link-schema.ts';
import type { Tx } from './unit-of-work.ts';

export const COMMAND_TTL_MS = 10 * 60_000;
const OPEN: Array<LockerCommandTable['state']> = ['PENDING', 'SENT'];

/** Queues "open the cell of this order" (one open command per order: asking twice reuses it). */
export async function queueOpenCell(
  tx: Tx,
  order: { id: string; postomatId: string; cellId: string | null },
  now: Date,
) {
  const trx = tx.db;
  const at = now.toISOString();
  const open = await openCommandOfOrder(trx, order.id, OPEN, at);
  if (open) return { command: open, created: false };
  const cell = order.cellId ? await cellNumberOf(trx, order.cellId) : undefined;
  if (!cell) throw new DomainError('CELL_NOT_FOUND', `order ${order.id} has no cell`);
  const command: LockerCommandTable = {
    id: newId(),
    postomatId: order.postomatId,
    orderId: order.id,
    type: 'OPEN_CELL',
    cellId: String(cell.number),
    state: 'PENDING',
    createdAt: at,
    expiresAt: new Date(now.getTime() + COMMAND_TTL_MS).toISOString(),
    sentAt: null,
    attempts: 0,
    answeredAt: null,
    error: null,
  };
  await insertLockerCommand(trx, command);
  tx.after.commandQueued(order.postomatId);
  return { command, created: true };
}
