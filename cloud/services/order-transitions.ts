/**
 * Status changes of locker orders. Each runs inside the caller's unit of work so that the
 * events it causes (sync to the locker, outbox rows) commit with it. The update is
 * conditional on the status it read: two racing changes cannot both apply.
 */
import { DomainError } from '../domain/errors.ts';
import { canTransition, isFinal, storagePeriod, type OrderStatus } from '../domain/order-states.ts';
import { newId } from '../storage/ids.ts';
import { addToStats, amountsOf, negate } from '../storage/order-stats.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { Tx } from './unit-of-work.ts';

export interface TransitionInput {
  orderId: string;
  to: OrderStatus;
  at: Date;
  /** the cell the parcel went into (placement) */
  cellId?: string;
}

export async function transitionOrder(tx: Tx, input: TransitionInput): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await trx.selectFrom('locker_order').selectAll().where('id', '=', input.orderId).executeTakeFirst();
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  const from = order.status as OrderStatus;
  if (!canTransition(from, input.to)) throw new DomainError('INVALID_TRANSITION', `order ${order.id} is ${from}, cannot become ${input.to}`);

  const now = input.at.toISOString();
  const statusId = newId();
  const changes: Partial<LockerOrderTable> = { status: input.to, currentStatusId: statusId, updatedAt: now };
  if (input.to === 'DELIVERED') {
    if (!input.cellId) throw new DomainError('CELL_NOT_FOUND', 'placement needs a cell');
    Object.assign(changes, { cellId: input.cellId }, storagePeriod(input.at, order.days));
  }
  const updated = await trx
    .updateTable('locker_order')
    .set(changes)
    .where('id', '=', order.id)
    .where('status', '=', from)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw new DomainError('INVALID_TRANSITION', `order ${order.id} changed concurrently`);

  await trx.insertInto('order_status').values({ id: statusId, orderId: order.id, type: input.to, createdAt: now, updatedAt: now }).execute();
  if (order.isActive) {
    await addToStats(trx, order.companyId, from, -1, negate(amountsOf(order)));
    await addToStats(trx, order.companyId, input.to, 1, amountsOf(order));
  }
  // Codes of a finished order are free again for new orders at this locker.
  if (isFinal(input.to)) {
    await trx.updateTable('order_code').set({ active: 0, updatedAt: now }).where('orderId', '=', order.id).execute();
  }
  const changed = { ...order, ...changes };
  // The events this change causes commit with it, or not at all.
  await tx.after.orderStatusChanged(changed, input.to, input.at);
  // The locker learns the cell (placement) or drops the order (final).
  await tx.after.lockerChanged(order.postomatId, order.id);
  return changed;
}

/** Settles an order's unpaid remainder (recipient paid at the counter, or staff waived it). */
export async function markPaid(tx: Tx, orderId: string, at: Date): Promise<LockerOrderTable> {
  const trx = tx.db;
  const order = await trx.selectFrom('locker_order').selectAll().where('id', '=', orderId).executeTakeFirst();
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  if (isFinal(order.status as OrderStatus)) throw new DomainError('ORDER_COMPLETED');
  if (order.notPaidAmount === 0) return order;
  const changes = { paidAmount: order.paidAmount + order.notPaidAmount, notPaidAmount: 0, updatedAt: at.toISOString() };
  await trx.updateTable('locker_order').set(changes).where('id', '=', orderId).execute();
  if (order.isActive) {
    const delta = { price: 0, deliveryPrice: 0, promoCodeAmount: 0, paidAmount: order.notPaidAmount, notPaidAmount: -order.notPaidAmount };
    await addToStats(trx, order.companyId, order.status, 0, delta);
  }
  // The locker hands the parcel out only once it knows nothing is left to pay.
  await tx.after.lockerChanged(order.postomatId, orderId);
  return { ...order, ...changes };
}
