/**
 * The orders as a locker's agent holds them, for the sync messages: each with its cell's number
 * and its codes. Reads of many ids take one chunk at a time (the caller chunks them).
 */
import { OPEN_STATUSES } from '../domain/order-states.ts';
import type { Db } from './database.ts';
import { prepared } from './prepared.ts';

const SYNC_COLUMNS = [
  'o.id',
  'o.postomatId',
  'o.status',
  'o.isActive',
  'o.notPaidAmount',
  'o.endDateTime',
  'o.cellSize',
  'o.kind',
  'c.number as cellNumber',
] as const;

/** Every order a locker holds now: active, waiting for its parcel or placed (the domain's rule: heldByLocker, OPEN_STATUSES). */
export function ordersHeldAt(db: Db, postomatId: string) {
  return db
    .selectFrom('locker_order as o')
    .leftJoin('cell as c', 'c.id', 'o.cellId')
    .select(SYNC_COLUMNS)
    .where('o.postomatId', '=', postomatId)
    .where('o.status', 'in', OPEN_STATUSES)
    .where('o.isActive', '=', 1)
    .execute();
}

const syncRowsQuery = (db: Db, orderIds: unknown[]) =>
  db
    .selectFrom('locker_order as o')
    .leftJoin('cell as c', 'c.id', 'o.cellId')
    .select(SYNC_COLUMNS)
    .where('o.id', 'in', orderIds as string[]);
/** Most deltas carry one order: that read is prepared once. */
const syncRowOf = prepared(1, (db: Db, orderId) => syncRowsQuery(db, [orderId]));

/** The orders named, in any state and at any locker, as a sync message describes them. */
export function syncRowsOf(db: Db, orderIds: string[]) {
  return orderIds.length === 1 ? syncRowOf(db, orderIds[0]) : syncRowsQuery(db, orderIds).execute();
}

/** The codes of the orders named, one row per code. */
export function codesOfOrders(db: Db, orderIds: string[]) {
  return db.selectFrom('order_code').select(['orderId', 'type', 'password']).where('orderId', 'in', orderIds).execute();
}
