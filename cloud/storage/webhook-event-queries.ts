/**
 * Webhook subscription events as they are recorded (issue 22), in the transaction of the change
 * they report: the owner's live subscriptions, the event with its body, and one PENDING
 * delivery per subscription taking its type. Which events a change makes, and their bodies,
 * are webhooks/record.ts's and webhooks/platform-record.ts's; sending them is
 * webhook-delivery-queries.ts's.
 */
import { sql } from 'kysely';
import { dialectOf, type Db } from './database.ts';
import { newId } from './ids.ts';
import { lockerOwnedByRef, lockerOwner, ownedBy, ownerColumns, type WebhookOwner } from './webhook-owner.ts';
import { prepared } from './prepared.ts';

/** A live subscription as a change's recorder reads it. */
export interface LiveSubscription {
  id: string;
  /** JSON array of the event types it takes */
  eventTypes: string;
}

/**
 * A Locker API company's live subscriptions as one JSON array (each dialect's own aggregate),
 * kept to its own rows by the owner rule (webhook-owner.ts ownedBy, or lockerOwnedByRef for a
 * company named by a column of the outer query): a subquery for the reads
 * that bring them with other facts of a change (storage/order-audience.ts, order-queries.ts
 * orderTargetAt), parsed by `parseLiveSubscriptions`.
 */
export const lockerSubscriptionsJson = (db: Db, company: string | { ref: string }) =>
  db
    .selectFrom('webhook_subscription as s')
    .select(
      (dialectOf(db) === 'postgres'
        ? sql<string>`coalesce(json_agg(json_build_object('id', s."id", 'eventTypes', s."eventTypes")), '[]'::json)`
        : sql<string>`json_group_array(json_object('id', s."id", 'eventTypes', s."eventTypes"))`
      ).as('subscriptions'),
    )
    .where(typeof company === 'string' ? ownedBy(lockerOwner(company)) : lockerOwnedByRef(company.ref))
    .where('s.deletedAt', 'is', null);

/** `lockerSubscriptionsJson`'s value: JSON text on SQLite, parsed by the driver on PostgreSQL. */
export const parseLiveSubscriptions = (value: string | LiveSubscription[] | null | undefined): LiveSubscription[] =>
  typeof value === 'string' ? (JSON.parse(value) as LiveSubscription[]) : (value ?? []);

// Run for every order event (webhooks/record.ts): prepared, not built each time.
const liveSubscriptions = prepared<[ownerKind: string, companyId: string], LiveSubscription>(
  2,
  (db: Db, ownerKind, companyId) =>
    db
      .selectFrom('webhook_subscription')
      .select(['id', 'eventTypes'])
      .where('ownerKind', '=', ownerKind)
      .where('companyId', '=', companyId)
      .where('deletedAt', 'is', null),
);

/** The owner's live subscriptions, with the event types each takes (JSON). */
export function liveSubscriptionTypes(trx: Db, owner: WebhookOwner) {
  const { ownerKind, companyId } = ownerColumns(owner);
  return liveSubscriptions(trx, ownerKind, companyId);
}

export interface NewWebhookEvent {
  eventId: string;
  type: string;
  orderId: string | null;
  body: string;
  createdAt: string;
}

export async function insertWebhookEvent(trx: Db, owner: WebhookOwner, e: NewWebhookEvent): Promise<void> {
  await trx
    .insertInto('webhook_event')
    .values({
      eventId: e.eventId,
      ...ownerColumns(owner),
      type: e.type,
      orderId: e.orderId,
      body: e.body,
      createdAt: e.createdAt,
    })
    .execute();
}

/** Returns the new deliveries' ids. */
export async function queueDeliveries(
  trx: Db,
  eventId: string,
  subscriptionIds: string[],
  at: Date,
): Promise<string[]> {
  if (!subscriptionIds.length) return [];
  const now = at.toISOString();
  const ids = subscriptionIds.map(() => newId());
  await trx
    .insertInto('webhook_delivery')
    .values(
      subscriptionIds.map((subscriptionId, i) => ({
        id: ids[i],
        eventId,
        subscriptionId,
        state: 'PENDING' as const,
        attempts: 0,
        nextAttemptAt: now,
        claimedBy: null,
        claimedUntil: null,
        lastStatus: null,
        lastError: null,
        createdAt: now,
        finishedAt: null,
      })),
    )
    .execute();
  return ids;
}

/** Those of the platform companies with a live subscription. */
export function platformCompaniesSubscribed(trx: Db, companies: number[]) {
  return trx
    .selectFrom('webhook_subscription')
    .select('companyId')
    .distinct()
    .where('ownerKind', '=', 'PLATFORM')
    .where('companyId', 'in', companies.map(String))
    .where('deletedAt', 'is', null)
    .execute();
}
