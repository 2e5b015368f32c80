/**
 * Events from lockers (`locker_event`, keyed by locker and event id, so a redelivered event
 * finds its row) and the attempts at one the cloud could not apply yet
 * (`locker_event_attempt`). Applying them is sync/ingest.ts's.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import type { LockerEventOutcome, LockerEventTable } from './locker-link-schema.ts';
import { prepared, preparedWrite } from './prepared.ts';

// Every door event runs the statements below: prepared once (prepared.ts), not built per call.
/** The event's outcome as a query (also a subquery of order-lookups.ts orderWithEventFacts). */
export const eventOutcomeQuery = (db: Db, postomatId: unknown, eventId: unknown) =>
  db
    .selectFrom('locker_event')
    .select('outcome')
    .where('postomatId', '=', postomatId as string)
    .where('eventId', '=', eventId as string);
const eventOutcome = prepared<[postomatId: string, eventId: string], { outcome: LockerEventOutcome }>(
  2,
  eventOutcomeQuery,
);

/** The outcome of the locker's event, if it is on record. */
export async function lockerEventOutcome(db: Db, postomatId: string, eventId: string) {
  return (await eventOutcome(db, postomatId, eventId))[0];
}

const EVENT_COLUMNS = [
  'postomatId',
  'eventId',
  'seq',
  'type',
  'orderId',
  'cellId',
  'detail',
  'at',
  'receivedAt',
  'outcome',
  'note',
] as const satisfies ReadonlyArray<keyof LockerEventTable>;
const eventInsert = preparedWrite<unknown[]>(EVENT_COLUMNS.length, (db: Db, ...values) =>
  db.insertInto('locker_event').values(Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, values[i]])) as any),
);

/** Fails with a unique violation when a copy of the event got in first. */
export async function insertLockerEvent(db: Db, row: LockerEventTable): Promise<void> {
  await eventInsert(db, ...EVENT_COLUMNS.map((c) => row[c]));
}

/** The event on record, unless a copy of it already is. */
export async function insertLockerEventOnce(db: Db, row: LockerEventTable): Promise<void> {
  await db
    .insertInto('locker_event')
    .values(row)
    .onConflict((oc) => oc.columns(['postomatId', 'eventId']).doNothing())
    .execute();
}

/**
 * Counts one more attempt at the event, with why it failed at `at`, and returns the count;
 * in the caller's transaction, so the count read is the one written.
 */
export async function countEventAttempt(
  trx: Db,
  postomatId: string,
  eventId: string,
  at: string,
  why: string,
): Promise<number> {
  await trx
    .insertInto('locker_event_attempt')
    .values({ postomatId, eventId, attempts: 1, firstAt: at, lastAt: at, lastError: why })
    .onConflict((oc) =>
      oc
        .columns(['postomatId', 'eventId'])
        .doUpdateSet((eb) => ({ attempts: eb('locker_event_attempt.attempts', '+', 1), lastAt: at, lastError: why })),
    )
    .execute();
  const row = await trx
    .selectFrom('locker_event_attempt')
    .select('attempts')
    .where('postomatId', '=', postomatId)
    .where('eventId', '=', eventId)
    .executeTakeFirstOrThrow();
  return Number(row.attempts);
}

const attemptsDelete = preparedWrite<[postomatId: string, eventId: string]>(2, (db: Db, postomatId, eventId) =>
  db.deleteFrom('locker_event_attempt').where('postomatId', '=', postomatId).where('eventId', '=', eventId),
);

/** One row if attempts at the event are counted (also a subquery of order-lookups.ts orderWithEventFacts). */
export const eventAttemptedQuery = (db: Db, postomatId: unknown, eventId: unknown) =>
  db
    .selectFrom('locker_event_attempt')
    .select(sql<number>`1`.as('one'))
    .where('postomatId', '=', postomatId as string)
    .where('eventId', '=', eventId as string);
const attempted = prepared<[postomatId: string, eventId: string], { one: number }>(2, eventAttemptedQuery);

/** Whether attempts at the event are counted: only then is there a count for its recording to clear. */
export async function hasEventAttempts(db: Db, postomatId: string, eventId: string): Promise<boolean> {
  return (await attempted(db, postomatId, eventId)).length > 0;
}

export async function clearEventAttempts(db: Db, postomatId: string, eventId: string): Promise<void> {
  await attemptsDelete(db, postomatId, eventId);
}

/** Whether this locker's placement of the order was refused or set aside: a pickup waiting for it would wait for ever. */
export async function placementWasRefused(db: Db, postomatId: string, orderId: string): Promise<boolean> {
  const row = await db
    .selectFrom('locker_event')
    .select('eventId')
    .where('orderId', '=', orderId)
    .where('postomatId', '=', postomatId)
    .where('type', '=', 'PLACED')
    .where('outcome', 'in', ['REJECTED', 'FAILED'])
    .executeTakeFirst();
  return row !== undefined;
}

/** The locker's latest events, newest first, for the operator. */
export function recentLockerEvents(db: Db, postomatId: string, limit: number) {
  return db
    .selectFrom('locker_event')
    .select(['eventId', 'type', 'orderId', 'cellId', 'detail', 'at', 'receivedAt', 'outcome', 'note'])
    .where('postomatId', '=', postomatId)
    .orderBy('receivedAt', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}
