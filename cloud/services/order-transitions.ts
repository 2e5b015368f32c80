/**
 * Status changes of locker orders. Each runs inside the caller's unit of work so that the
 * events it causes (sync to the locker, outbox rows) commit with it. The update is
 * conditional on the status it read: two racing changes cannot both apply.
 */
import { DomainError } from '../domain/errors.ts';
import { canTransition, isFinal, storagePeriod, type OrderStatus } from '../domain/order-states.ts';
import { clashingCodes, pickOrderCodes, secureRandomInt, type OrderCodes, type RandomInt } from '../domain/codes.ts';
import { newId } from '../storage/ids.ts';
import { liveCodesAt } from '../storage/order-queries.ts';
import { codesOfOrder, orderById, orderWithAudience } from '../storage/order-lookups.ts';
import {
  changeOrderStatus,
  freeOrderCodes,
  recordOrderStatus,
  recordPayment,
  reviveOrder,
  reviveOrderCode,
} from '../storage/order-writes.ts';
import { addToStats, amountsOf, moveInStats } from '../storage/order-stats.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { Tx } from './unit-of-work.ts';

export interface TransitionInput {
  orderId: string;
  to: OrderStatus;
  at: Date;
  /** the cell the parcel went into (placement) */
  cellId?: string;
  /** draws a fresh code for a revived order whose code was taken meanwhile (tests rig it) */
  randomInt?: RandomInt;
}

export async function transitionOrder(tx: Tx, input: TransitionInput): Promise<LockerOrderTable> {
  const trx = tx.db;
  const found = await orderWithAudience(trx, input.orderId);
  if (!found) throw new DomainError('ORDER_NOT_FOUND');
  const { order, audience } = found;
  const from = order.status as OrderStatus;
  if (!canTransition(from, input.to))
    throw new DomainError('INVALID_TRANSITION', `order ${order.id} is ${from}, cannot become ${input.to}`);

  const now = input.at.toISOString();
  const statusId = newId();
  const changes: Partial<LockerOrderTable> = { status: input.to, currentStatusId: statusId, updatedAt: now };
  if (input.to === 'DELIVERED') {
    if (!input.cellId) throw new DomainError('CELL_NOT_FOUND', 'placement needs a cell');
    Object.assign(changes, { cellId: input.cellId }, storagePeriod(input.at, order.days));
  }
  if (!(await changeOrderStatus(trx, order.id, from, changes)))
    throw new DomainError('INVALID_TRANSITION', `order ${order.id} changed concurrently`);

  await recordOrderStatus(trx, { id: statusId, orderId: order.id, type: input.to, createdAt: now, updatedAt: now });
  if (order.isActive) {
    await moveInStats(trx, order.companyId, from, input.to, amountsOf(order));
  }
  // An order archived for never being placed whose parcel went in after all (the locker was
  // offline when it expired): the parcel is in the cell, so the order is live again.
  if (input.to === 'DELIVERED' && !order.isActive && order.expiredAt) {
    Object.assign(changes, await reviveExpired(tx, order, now, input.randomInt));
  }
  // Codes of a finished order are free again for new orders at this locker.
  if (isFinal(input.to)) {
    await freeOrderCodes(trx, order.id, now);
  }
  const changed = { ...order, ...changes };
  // The events this change causes commit with it, or not at all.
  await tx.after.orderStatusChanged(changed, input.to, input.at, audience);
  // The locker learns the cell (placement) or drops the order (final).
  await tx.after.lockerChanged(order.postomatId, order.id);
  return changed;
}

/** Settles an order's unpaid remainder (recipient paid at the counter, or staff waived it). */
export async function markPaid(tx: Tx, orderId: string, at: Date): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await orderById(trx, orderId);
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  if (isFinal(order.status as OrderStatus)) throw new DomainError('ORDER_COMPLETED');
  if (order.notPaidAmount === 0) return order;
  const changes = { paidAmount: order.paidAmount + order.notPaidAmount, notPaidAmount: 0, updatedAt: at.toISOString() };
  await recordPayment(trx, orderId, changes);
  if (order.isActive) {
    const delta = {
      price: 0,
      deliveryPrice: 0,
      promoCodeAmount: 0,
      paidAmount: order.notPaidAmount,
      notPaidAmount: -order.notPaidAmount,
    };
    await addToStats(trx, order.companyId, order.status, 0, delta);
  }
  // The locker hands the parcel out only once it knows nothing is left to pay.
  await tx.after.lockerChanged(order.postomatId, orderId);
  return { ...order, ...changes };
}

/**
 * Makes an expired order active again, as placed: back in the lists and counters, its codes
 * live again at its locker. A code another order took while it was archived is drawn afresh
 * (the pickup code reaches the recipient with the placement SMS, read when it is sent).
 */
async function reviveExpired(
  tx: Tx,
  order: LockerOrderTable,
  now: string,
  randomInt: RandomInt = secureRandomInt,
): Promise<Partial<LockerOrderTable>> {
  const trx = tx.db;
  const revived = { isActive: 1, expiredAt: null, updatedAt: now };
  await reviveOrder(trx, order.id, revived);
  const rows = await codesOfOrder(trx, order.id);
  const current = Object.fromEntries(rows.map((c) => [c.type, c.password])) as OrderCodes;
  const live = await liveCodesAt(trx, order.postomatId);
  const taken = new Set(clashingCodes(current, live));
  // The codes it keeps count as taken in every type: an order's three codes stay distinct.
  const kept = rows.filter((r) => !taken.has(r.type)).map((r) => r.password);
  const withKept = {
    DOWN: new Set([...live.DOWN, ...kept]),
    UP: new Set([...live.UP, ...kept]),
    SUBTRACT: new Set([...live.SUBTRACT, ...kept]),
  };
  const fresh = taken.size ? pickOrderCodes(withKept, randomInt) : undefined;
  for (const row of rows) {
    const type = row.type;
    await reviveOrderCode(trx, row.id, fresh && taken.has(type) ? fresh[type] : row.password, now);
  }
  await addToStats(trx, order.companyId, 'DELIVERED', 1, amountsOf(order));
  return revived;
}
