/**
 * Writes of the locker order aggregate (`locker_order`, its `order_code` and `order_status`
 * rows), each run in the caller's transaction. The conditional updates answer whether they
 * applied: the condition is the state the caller read, so of two racing changes only one applies.
 */
import type { CloudOrderStatus } from '../domain/order-states.ts';
import type { Insertable } from 'kysely';
import type { Db } from './database.ts';
import { preparedInsert } from './prepared.ts';
import type { LockerOrderTable, OrderCodeTable, OrderStatusTable } from './schema.ts';

const applied = (res: { numUpdatedRows: bigint }) => Number(res.numUpdatedRows) === 1;

const orderInsert = preparedInsert('locker_order');
const codeInsert = preparedInsert('order_code');
const statusInsert = preparedInsert('order_status');

export async function insertOrder(db: Db, order: Insertable<LockerOrderTable>): Promise<void> {
  await orderInsert(db, [order]);
}

export async function insertOrderCodes(db: Db, codes: Insertable<OrderCodeTable>[]): Promise<void> {
  await codeInsert(db, codes);
}

/** A status the order took, in its history (GET /order/{id}'s statuses). */
export async function recordOrderStatus(db: Db, status: OrderStatusTable): Promise<void> {
  await statusInsert(db, [status]);
}

/** A status change, applied only if the order is still in the status `from` it was read in. */
export async function changeOrderStatus(
  db: Db,
  orderId: string,
  from: CloudOrderStatus,
  changes: Partial<LockerOrderTable>,
): Promise<boolean> {
  return applied(
    await db
      .updateTable('locker_order')
      .set(changes)
      .where('id', '=', orderId)
      .where('status', '=', from)
      .executeTakeFirst(),
  );
}

/** Archives (or expires) an order only while it is still active and waiting for its parcel. */
export async function closeUnplacedOrder(
  db: Db,
  orderId: string,
  changes: Partial<LockerOrderTable>,
): Promise<boolean> {
  return applied(
    await db
      .updateTable('locker_order')
      .set(changes)
      .where('id', '=', orderId)
      .where('status', '=', 'CREATED')
      .where('isActive', '=', 1)
      .executeTakeFirst(),
  );
}

/** Changes an active, unplaced order only while it is still at the locker it was read at (a move, a withdrawal). */
export async function claimOpenOrder(
  db: Db,
  order: Pick<LockerOrderTable, 'id' | 'postomatId'>,
  changes: Partial<LockerOrderTable>,
): Promise<boolean> {
  return applied(
    await db
      .updateTable('locker_order')
      .set(changes)
      .where('id', '=', order.id)
      .where('status', '=', 'CREATED')
      .where('isActive', '=', 1)
      .where('postomatId', '=', order.postomatId)
      .executeTakeFirst(),
  );
}

/** A longer storage period, applied only to the end date the caller read. */
export async function extendStoragePeriod(
  db: Db,
  orderId: string,
  seenEnd: string,
  changes: Partial<LockerOrderTable>,
): Promise<boolean> {
  return applied(
    await db
      .updateTable('locker_order')
      .set(changes)
      .where('id', '=', orderId)
      .where('status', '=', 'DELIVERED')
      .where('endDateTime', '=', seenEnd)
      .executeTakeFirst(),
  );
}

/** Moves a placed order's storage period (the sandbox's time travel). */
export async function shiftStoragePeriod(
  db: Db,
  orderId: string,
  period: Pick<LockerOrderTable, 'startDateTime' | 'endDateTime' | 'updatedAt'>,
): Promise<void> {
  await db
    .updateTable('locker_order')
    .set(period)
    .where('id', '=', orderId)
    .where('status', '=', 'DELIVERED')
    .execute();
}

/** The unpaid remainder settled. */
export async function recordPayment(
  db: Db,
  orderId: string,
  changes: Pick<LockerOrderTable, 'paidAmount' | 'notPaidAmount' | 'updatedAt'>,
): Promise<void> {
  await db.updateTable('locker_order').set(changes).where('id', '=', orderId).execute();
}

/** An archived order back in the lists (its parcel was placed after all). */
export async function reviveOrder(db: Db, orderId: string, revived: Partial<LockerOrderTable>): Promise<void> {
  await db.updateTable('locker_order').set(revived).where('id', '=', orderId).execute();
}

/** An order's codes stop counting at its locker: free for new orders there. */
export async function freeOrderCodes(db: Db, orderId: string, now: string): Promise<void> {
  await db.updateTable('order_code').set({ active: 0, updatedAt: now }).where('orderId', '=', orderId).execute();
}

/** A revived order's code live again, with the password it keeps or a fresh one. */
export async function reviveOrderCode(db: Db, codeId: string, password: string, now: string): Promise<void> {
  await db.updateTable('order_code').set({ active: 1, password, updatedAt: now }).where('id', '=', codeId).execute();
}

/** A moved order's code at its new locker, with the password it keeps or a fresh one. */
export async function moveOrderCode(
  db: Db,
  codeId: string,
  postomatId: string,
  password: string,
  now: string,
): Promise<void> {
  await db.updateTable('order_code').set({ postomatId, password, updatedAt: now }).where('id', '=', codeId).execute();
}
