/**
 * Changes a company makes to its order after creation (issue 22). Each is one transaction with
 * its events, conditional on the state it read, so a placement racing with a cancel cannot be
 * undone and an extension applies to the end date it saw.
 */
import { DomainError } from '../domain/errors.ts';
import { MAX_STORAGE_DAYS } from '../domain/order-states.ts';
import { addToStats, amountsOf, negate } from '../storage/order-stats.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { Db } from '../storage/database.ts';
import { orderOfCompany } from '../storage/order-lookups.ts';
import { closeUnplacedOrder, extendStoragePeriod, freeOrderCodes } from '../storage/order-writes.ts';
import type { RandomInt } from '../domain/codes.ts';
import { CellSize } from '../../shared/mqtt/schemas.ts';
import { reserveCell } from './cell-capacity.ts';
import { moveOrderToPostomat } from './order-moves.ts';
import { admitOrderAt, type OrderTargetConfig } from './order-target.ts';
import type { Tx } from './unit-of-work.ts';

/** A company's order, live or not (a cancelled one is no longer in the order reads). */
async function companyOrder(trx: Db, companyId: string, orderId: string): Promise<LockerOrderTable> {
  const order = await orderOfCompany(trx, companyId, orderId);
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  return order;
}

/**
 * Cancels an order whose parcel is not placed yet: archived like a withdrawn order (out of the
 * lists and counters), its codes freed and removed from the locker through the normal sync. A
 * second cancel answers the cancelled order again. What was paid stays on record: refunds are
 * the operator's decision (`company top-up`).
 */
export async function cancelOrder(tx: Tx, companyId: string, orderId: string, at: Date): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await companyOrder(trx, companyId, orderId);
  if (order.cancelledAt) return order;
  if (order.status !== 'CREATED') throw new DomainError('ORDER_ALREADY_PLACED', `order ${order.id} is ${order.status}`);
  // Expired or withdrawn (redirected) orders are gone from the company's view already.
  if (order.isActive !== 1) throw new DomainError('ORDER_NOT_FOUND');
  const now = at.toISOString();
  const changes = { isActive: 0, cancelledAt: now, updatedAt: now };
  if (!(await closeUnplacedOrder(trx, order.id, changes)))
    throw new DomainError('ORDER_ALREADY_PLACED', `order ${order.id} changed concurrently`);
  await freeOrderCodes(trx, order.id, now);
  await addToStats(trx, order.companyId, order.status, -1, negate(amountsOf(order)));
  const cancelled = { ...order, ...changes };
  await tx.after.orderEvent(cancelled, 'order.cancelled', at);
  // Last: on PostgreSQL it holds the locker's sync row until commit.
  await tx.after.lockerChanged(order.postomatId, order.id);
  return cancelled;
}

/**
 * Extends a placed order's storage period by `days`, up to MAX_STORAGE_DAYS in all. The new end
 * reaches the locker through the normal sync (SyncOrder.storageEnd); the recipient's SMS is sent
 * again with the new date when the order sends messages.
 */
export async function extendOrder(
  tx: Tx,
  companyId: string,
  orderId: string,
  days: number,
  at: Date,
): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await companyOrder(trx, companyId, orderId);
  if (order.isActive !== 1) throw new DomainError('ORDER_NOT_FOUND');
  if (order.status !== 'DELIVERED' || !order.endDateTime)
    throw new DomainError('ORDER_NOT_DELIVERED', `order ${order.id} is ${order.status}`);
  if (order.days + days > MAX_STORAGE_DAYS)
    throw new DomainError(
      'STORAGE_PERIOD_TOO_LONG',
      `order ${order.id} would be stored ${order.days + days} days; at most ${MAX_STORAGE_DAYS}`,
    );
  const changes = {
    days: order.days + days,
    endDateTime: new Date(Date.parse(order.endDateTime) + days * 86_400_000).toISOString(),
    updatedAt: at.toISOString(),
  };
  if (!(await extendStoragePeriod(trx, order.id, order.endDateTime, changes)))
    throw new DomainError('ORDER_NOT_DELIVERED', `order ${order.id} changed concurrently`);
  const extended = { ...order, ...changes };
  await tx.after.orderEvent(extended, 'order.extended', at);
  // Last: on PostgreSQL it holds the locker's sync row until commit.
  await tx.after.lockerChanged(order.postomatId, order.id);
  return extended;
}

export interface RedirectDeps {
  randomInt?: RandomInt;
  /** `overbookingRatio` as for a new sized order */
  config?: OrderTargetConfig & { overbookingRatio?: number };
}

/**
 * Sends an order whose parcel is not placed yet to another locker (the marketplace's move,
 * services/order-moves.ts): three new codes at the new locker, the old ones withdrawn from the
 * old locker, both through the normal sync, with `order.redirected` (and the recipient's SMS)
 * in the same transaction. The target is checked like a new order's: active, and within the
 * company's pending orders there. The order's own locker is no change: the order is answered
 * as it is (no new codes, no event), so a retry of a redirect that went through does no harm.
 */
export async function redirectOrder(
  tx: Tx,
  deps: RedirectDeps,
  companyId: string,
  orderId: string,
  postomatId: string,
  at: Date,
): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await companyOrder(trx, companyId, orderId);
  // Cancelled, expired or withdrawn: gone from the company's view, as for cancel.
  if (order.isActive !== 1) throw new DomainError('ORDER_NOT_FOUND');
  if (order.status !== 'CREATED') throw new DomainError('ORDER_ALREADY_PLACED', `order ${order.id} is ${order.status}`);
  if (order.postomatId === postomatId) return order;
  await admitOrderAt(trx, postomatId, companyId, deps.config, { notFoundDetail: `no active locker ${postomatId}` });
  // A sized order holds its size at the target as a new one would (the same refusals: PARCEL_TOO_BIG,
  // NO_FITTING_CELL), with its reservation's end unchanged.
  if (order.cellSize) {
    await reserveCell(
      trx,
      postomatId,
      {
        cellSize: CellSize.parse(order.cellSize),
        reserveUntil: order.reserveUntil ? new Date(order.reserveUntil) : undefined,
      },
      at,
      deps.config?.overbookingRatio,
    );
  }
  try {
    return await moveOrderToPostomat(tx, order.id, postomatId, at, deps.randomInt, {
      freshCodes: true,
      beforeSync: (moved) => tx.after.orderEvent(moved, 'order.redirected', at),
    });
  } catch (err) {
    // Placed (or cancelled) between our read and the move's conditional update.
    if (err instanceof DomainError && err.code === 'INVALID_TRANSITION')
      throw new DomainError('ORDER_ALREADY_PLACED', `order ${order.id} changed concurrently`);
    throw err;
  }
}
