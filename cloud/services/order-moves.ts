/**
 * A locker order whose parcel is not in a cell yet follows its parcel when the marketplace
 * redirects it: it moves to another locker, or is withdrawn when the parcel goes to a pickup
 * point instead. Both run inside the caller's transaction and are conditional on the order
 * still being an active CREATED order, so a placement racing with them cannot be undone.
 *
 * The locker link hears of both in the same unit of work: a moved order is a removal at the old
 * locker and an upsert at the new one; a withdrawn order is a removal.
 */
import type { Db } from '../storage/database.ts';
import { DomainError } from '../domain/errors.ts';
import { clashingCodes, pickOrderCodes, secureRandomInt, type OrderCodes, type RandomInt } from '../domain/codes.ts';
import { liveCodesAt } from '../storage/order-queries.ts';
import { codesOfOrder, orderById } from '../storage/order-lookups.ts';
import { claimOpenOrder, freeOrderCodes, moveOrderCode } from '../storage/order-writes.ts';
import { activePostomatId } from '../storage/postomat-queries.ts';
import { addToStats, amountsOf, negate } from '../storage/order-stats.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { Tx } from './unit-of-work.ts';

async function openOrder(trx: Db, orderId: string): Promise<LockerOrderTable> {
  const order = await orderById(trx, orderId);
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  if (order.isActive !== 1 || order.status !== 'CREATED') throw notOpen(order);
  return order;
}

const notOpen = (o: LockerOrderTable) =>
  new DomainError(
    'INVALID_TRANSITION',
    `order ${o.id} is ${o.isActive === 1 ? o.status : 'withdrawn'}: only an active order whose parcel is not placed yet can move or be withdrawn`,
  );

/** Claims the order by a conditional update first: a concurrent placement then waits for us, and fails. */
async function updateOpen(trx: Db, order: LockerOrderTable, changes: Partial<LockerOrderTable>): Promise<void> {
  if (!(await claimOpenOrder(trx, order, changes)))
    throw new DomainError('INVALID_TRANSITION', `order ${order.id} changed concurrently`);
}

export interface MoveOptions {
  /** draw three new codes even when the old ones are free at the new locker (a company's redirect) */
  freshCodes?: boolean;
  /** runs after the rows changed and before the lockers hear of it (an event of the move, in the same transaction) */
  beforeSync?: (moved: LockerOrderTable) => Promise<void>;
}

/**
 * Moves an order to another locker. Its codes come along unless one of them is live in its
 * space at the new locker (domain/codes.ts) or `freshCodes` asks: then all three are drawn
 * afresh, apart from the old ones too.
 */
export async function moveOrderToPostomat(
  tx: Tx,
  orderId: string,
  postomatId: string,
  at: Date,
  randomInt: RandomInt = secureRandomInt,
  opts: MoveOptions = {},
): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await openOrder(trx, orderId);
  if (order.postomatId === postomatId) return order;
  const target = await activePostomatId(trx, postomatId);
  if (!target) throw new DomainError('POSTOMAT_NOT_FOUND');
  const now = at.toISOString();
  await updateOpen(trx, order, { postomatId, updatedAt: now });

  const codes = await codesOfOrder(trx, orderId);
  const current = Object.fromEntries(codes.map((c) => [c.type, c.password])) as OrderCodes;
  const live = await liveCodesAt(trx, postomatId);
  let fresh: OrderCodes | undefined;
  if (opts.freshCodes) {
    for (const c of codes) (live[c.type] as Set<string>).add(c.password);
    fresh = pickOrderCodes(live, randomInt);
  } else if (clashingCodes(current, live).length) {
    fresh = pickOrderCodes(live, randomInt);
  }
  for (const code of codes) {
    await moveOrderCode(trx, code.id, postomatId, fresh ? fresh[code.type] : code.password, now);
  }
  const moved = { ...order, postomatId, updatedAt: now };
  await opts.beforeSync?.(moved);
  // Last: on PostgreSQL they hold the lockers' sync rows until commit.
  await tx.after.lockerChanged(order.postomatId, orderId);
  await tx.after.lockerChanged(postomatId, orderId);
  return moved;
}

/**
 * Withdraws an order whose parcel goes elsewhere: archived (isActive 0, out of lists and
 * counters) with its codes freed. What it was paid stays on the record: refunds are the
 * operator's decision (`company top-up`).
 */
export async function withdrawOrder(tx: Tx, orderId: string, at: Date): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await openOrder(trx, orderId);
  const now = at.toISOString();
  await updateOpen(trx, order, { isActive: 0, updatedAt: now });
  await freeOrderCodes(trx, orderId, now);
  await addToStats(trx, order.companyId, order.status, -1, negate(amountsOf(order)));
  await tx.after.lockerChanged(order.postomatId, orderId);
  return { ...order, isActive: 0, updatedAt: now };
}
