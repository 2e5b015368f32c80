/**
 * Reads of one locker order, or of a few by id, for the operations, the locker link and the
 * senders, run in the caller's transaction when it passes one. The Locker API's reads (pages,
 * prepared single reads) are in order-queries.ts.
 */
import type { Db } from './database.ts';
import type { LockerEventOutcome } from './locker-link-schema.ts';
import { eventAttemptedQuery, eventOutcomeQuery } from './locker-event-queries.ts';
import { cellIdByNumberQuery } from './cell-queries.ts';
import { jsonIds, prepared } from './prepared.ts';
import type { LockerOrderTable } from './schema.ts';
import { audienceColumns, audienceOfRow, type AudienceColumns, type OrderAudience } from './order-audience.ts';

// The lookups every status change and door event makes: prepared once (prepared.ts).
const byId = prepared<[orderId: string], LockerOrderTable>(1, (db: Db, orderId) =>
  db.selectFrom('locker_order').selectAll().where('id', '=', orderId),
);

/** An order of any company, live or not. */
export async function orderById(db: Db, orderId: string): Promise<LockerOrderTable | undefined> {
  return (await byId(db, orderId))[0];
}

const withAudience = prepared<[orderId: string], LockerOrderTable & AudienceColumns>(1, (db: Db, orderId) =>
  db
    .selectFrom('locker_order as o')
    .selectAll('o')
    .select((eb) => audienceColumns(db, eb, { companyId: 'o.companyId', recipientId: 'o.toUserId' }))
    .where('o.id', '=', orderId),
);

/** An order of any company and who hears of its changes (order-audience.ts), in one statement: a status change's read. */
export async function orderWithAudience(
  db: Db,
  orderId: string,
): Promise<{ order: LockerOrderTable; audience: OrderAudience } | undefined> {
  const [row] = await withAudience(db, orderId);
  if (!row) return undefined;
  const { audience, rest } = audienceOfRow(row);
  return { order: rest as LockerOrderTable, audience };
}

/** A company's order, live or not (a cancelled one is no longer in the Locker API's reads). */
export function orderOfCompany(db: Db, companyId: string, orderId: string): Promise<LockerOrderTable | undefined> {
  return db
    .selectFrom('locker_order')
    .selectAll()
    .where('id', '=', orderId)
    .where('companyId', '=', companyId)
    .executeTakeFirst();
}

/** An order's three codes, whichever are live. */
export function codesOfOrder(db: Db, orderId: string) {
  return db.selectFrom('order_code').select(['id', 'type', 'password']).where('orderId', '=', orderId).execute();
}

/** The statuses an order took, oldest first. */
export function statusHistoryOf(db: Db, orderId: string) {
  return db
    .selectFrom('order_status')
    .select(['type', 'createdAt'])
    .where('orderId', '=', orderId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

const statuses = prepared<[idsJson: string], { id: string; status: LockerOrderTable['status'] }>(1, (db: Db, json) =>
  db.selectFrom('locker_order').select(['id', 'status']).where('id', 'in', jsonIds(db, json)),
);

/** The current status of each order named (an id absent from the answer has no order). */
export function statusesOfOrders(db: Db, orderIds: string[]) {
  return statuses(db, JSON.stringify(orderIds));
}

/** What applying a locker's event needs of its order: where it is, its state, and since when. */
export interface EventOrder {
  id: string;
  postomatId: string;
  status: LockerOrderTable['status'];
  isActive: number;
  expiredAt: string | null;
  createdAt: string;
  statusAt: string | null;
}

const eventOrderQuery = (db: Db, orderId: unknown) =>
  db
    .selectFrom('locker_order as o')
    .leftJoin('order_status as s', 's.id', 'o.currentStatusId')
    .select(['o.id', 'o.postomatId', 'o.status', 'o.isActive', 'o.expiredAt', 'o.createdAt', 's.createdAt as statusAt'])
    .where('o.id', '=', orderId as string);

const forLockerEvent = prepared<[orderId: string], EventOrder>(1, eventOrderQuery);

export async function orderForLockerEvent(db: Db, orderId: string): Promise<EventOrder | undefined> {
  return (await forLockerEvent(db, orderId))[0];
}

type FactsRow = EventOrder & { seen: LockerEventOutcome | null; attempted: number | null; cellId: string | null };

/**
 * A locker event's order with what else the event's application reads before it decides
 * (storage/locker-event-facts.ts): whether the event is on record, whether attempts at it are
 * counted, and the id of the cell it names by number. One statement: one round trip on PostgreSQL.
 */
export const orderWithEventFacts = prepared<
  [orderId: string, postomatId: string, eventId: string, cellNumber: number | null],
  FactsRow
>(4, (db: Db, orderId, postomatId, eventId, cellNumber) =>
  eventOrderQuery(db, orderId).select([
    eventOutcomeQuery(db, postomatId, eventId).as('seen'),
    eventAttemptedQuery(db, postomatId, eventId).as('attempted'),
    cellIdByNumberQuery(db, postomatId, cellNumber).as('cellId'),
  ]),
);

/** What a recipient's SMS says of an order: its locker, cell, end of storage and the code of `codeType`. */
export function smsFactsOf(db: Db, orderId: string, codeType: 'DOWN' | 'UP') {
  return db
    .selectFrom('locker_order as o')
    .innerJoin('postomat as p', 'p.id', 'o.postomatId')
    .leftJoin('cell as c', 'c.id', 'o.cellId')
    .innerJoin('order_code as k', (j) => j.onRef('k.orderId', '=', 'o.id').on('k.type', '=', codeType))
    .select(['p.title', 'p.shortId', 'c.number', 'k.password', 'o.endDateTime', 'o.kind'])
    .where('o.id', '=', orderId)
    .executeTakeFirst();
}
