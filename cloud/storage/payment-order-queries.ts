/**
 * Payment orders and the parcels and cargo items they cover. Items carry the order's paid
 * state (`isPaid`) for the `isPayed` filter.
 */
import type { Insertable } from 'kysely';
import type { Db } from './database.ts';
import type { PlatformDatabase } from './platform-schema.ts';

export type PaidItemKind = 'parcel' | 'cargo';

export function findPaymentOrder(db: Db, id: number) {
  return db.selectFrom('payment_order').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertPaymentOrder(db: Db, order: Insertable<PlatformDatabase['payment_order']>) {
  return db.insertInto('payment_order').values(order).returningAll().executeTakeFirstOrThrow();
}

/** The item's payment order, if it has one (undefined: no such item). */
export function findItemPaymentOrderId(db: Db, kind: PaidItemKind, id: number) {
  return db.selectFrom(kind).select(['id', 'paymentOrderId']).where('id', '=', id).executeTakeFirst();
}

export async function attachItemToPaymentOrder(
  db: Db,
  kind: PaidItemKind,
  id: number,
  change: { paymentOrderId: number; isPaid: 0 | 1; at: string },
): Promise<void> {
  await db
    .updateTable(kind)
    .set({ paymentOrderId: change.paymentOrderId, isPaid: change.isPaid, updatedAt: change.at })
    .where('id', '=', id)
    .execute();
}

/** Marks the order paid, and every parcel and cargo item it covers. */
export async function markPaymentOrderAndItemsPaid(db: Db, id: number, at: string) {
  const paid = await db
    .updateTable('payment_order')
    .set({ isPaid: 1, paidAt: at, updatedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await db.updateTable('parcel').set({ isPaid: 1, updatedAt: at }).where('paymentOrderId', '=', id).execute();
  await db.updateTable('cargo').set({ isPaid: 1, updatedAt: at }).where('paymentOrderId', '=', id).execute();
  return paid;
}
