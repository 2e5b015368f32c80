/**
 * A company's webhook subscriptions, and its events and their deliveries as the company reads
 * them (issue 22). Every query keeps to one owner's rows (webhook-owner.ts); recording events
 * and queueing deliveries are webhook-event-queries.ts's, sending them
 * webhook-delivery-queries.ts's.
 */
import type { Db } from './database.ts';
import { ownedBy, type WebhookOwner } from './webhook-owner.ts';
import type { WebhookSubscriptionTable } from './webhook-schema.ts';

/** A subscription of the owner's that is not deleted. */
export function liveSubscriptionById(db: Db, owner: WebhookOwner, id: string) {
  return db
    .selectFrom('webhook_subscription')
    .selectAll()
    .where('id', '=', id)
    .where(ownedBy(owner))
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}

export async function liveSubscriptionCount(db: Db, owner: WebhookOwner): Promise<number> {
  const count = await db
    .selectFrom('webhook_subscription')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(ownedBy(owner))
    .where('deletedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(count.n);
}

export async function insertSubscription(db: Db, row: WebhookSubscriptionTable): Promise<void> {
  await db.insertInto('webhook_subscription').values(row).execute();
}

/** The owner's live subscriptions, oldest first. */
export function liveSubscriptionsOf(db: Db, owner: WebhookOwner) {
  return db
    .selectFrom('webhook_subscription')
    .selectAll()
    .where(ownedBy(owner))
    .where('deletedAt', 'is', null)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** The owner's live subscriptions with the event types each takes (a replay picks its targets from them). */
export function liveSubscriptionTypesOf(db: Db, owner: WebhookOwner) {
  return db
    .selectFrom('webhook_subscription')
    .select(['id', 'eventTypes'])
    .where(ownedBy(owner))
    .where('deletedAt', 'is', null)
    .execute();
}

/** Marks a subscription deleted; its row stays for the deliveries and events that name it. */
export async function markSubscriptionDeleted(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('webhook_subscription').set({ deletedAt: at, updatedAt: at }).where('id', '=', id).execute();
}

export async function updateSubscriptionSecrets(
  db: Db,
  id: string,
  changes: Pick<WebhookSubscriptionTable, 'secret' | 'previousSecret' | 'previousSecretUntil' | 'updatedAt'>,
): Promise<void> {
  await db.updateTable('webhook_subscription').set(changes).where('id', '=', id).execute();
}

/** `limit` events of the owner's, newest first, before the event numbered `beforeSeq` when given. */
export function eventPageOf(db: Db, owner: WebhookOwner, limit: number, beforeSeq?: number) {
  let query = db
    .selectFrom('webhook_event')
    .select(['id', 'eventId', 'body'])
    .where(ownedBy(owner))
    .orderBy('id', 'desc')
    .limit(limit);
  if (beforeSeq !== undefined) query = query.where('id', '<', beforeSeq);
  return query.execute();
}

/** One event of the owner's by its public id. */
export function ownedEvent(db: Db, owner: WebhookOwner, eventId: string) {
  return db
    .selectFrom('webhook_event')
    .selectAll()
    .where('eventId', '=', eventId)
    .where(ownedBy(owner))
    .executeTakeFirst();
}

/** The deliveries of the events named, oldest first. */
export function deliveriesOfEvents(db: Db, eventIds: string[]) {
  return db
    .selectFrom('webhook_delivery')
    .selectAll()
    .where('eventId', 'in', eventIds)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

export function deliveriesOfEvent(db: Db, eventId: string) {
  return db
    .selectFrom('webhook_delivery')
    .selectAll()
    .where('eventId', '=', eventId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** The attempts of the deliveries named, in attempt order. */
export function attemptsOfDeliveries(db: Db, deliveryIds: string[]) {
  return db
    .selectFrom('webhook_attempt')
    .selectAll()
    .where('deliveryId', 'in', deliveryIds)
    .orderBy('attempt')
    .execute();
}

export function deliveriesByIds(db: Db, ids: string[]) {
  return db.selectFrom('webhook_delivery').selectAll().where('id', 'in', ids).execute();
}
