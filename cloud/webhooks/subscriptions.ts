/**
 * A company's webhook subscriptions, its events and their deliveries (issue 22), for either
 * owner (owner.ts): a Locker API company or a platform company. Secrets leave only in the
 * answers to create and rotate.
 */
import type { z } from 'zod';
import type { Db } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { DomainError } from '../domain/errors.ts';
import type { Tx } from '../services/unit-of-work.ts';
import { newSigningSecret } from './signature.ts';
import { queueDeliveries } from '../storage/webhook-event-queries.ts';
import { ownerColumns, type WebhookOwner } from './owner.ts';
import {
  attemptsOfDeliveries,
  deliveriesByIds,
  deliveriesOfEvent,
  deliveriesOfEvents,
  eventPageOf,
  insertSubscription,
  liveSubscriptionById,
  liveSubscriptionCount,
  liveSubscriptionsOf,
  liveSubscriptionTypesOf,
  markSubscriptionDeleted,
  ownedEvent,
  updateSubscriptionSecrets,
} from '../storage/webhook-subscription-queries.ts';
import { SUBSCRIPTIONS_PER_COMPANY, type Attempt, type Delivery, type Subscription } from './schemas.ts';
import type { WebhookDeliveryTable, WebhookSubscriptionTable } from './tables.ts';

const DEFAULT_OVERLAP_HOURS = 24;

function present(s: WebhookSubscriptionTable, now: Date): z.output<typeof Subscription> {
  const rotating = s.previousSecretUntil && s.previousSecretUntil > now.toISOString() ? s.previousSecretUntil : null;
  return {
    id: s.id,
    url: s.url,
    eventTypes: JSON.parse(s.eventTypes),
    createdAt: s.createdAt,
    secretRotatedUntil: rotating,
  };
}

function presentDelivery(d: WebhookDeliveryTable): z.output<typeof Delivery> {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.state === 'PENDING' || d.state === 'SENDING' ? d.nextAttemptAt : null,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    createdAt: d.createdAt,
    finishedAt: d.finishedAt,
  };
}

async function liveSubscription(trx: Db, owner: WebhookOwner, id: string): Promise<WebhookSubscriptionTable> {
  const s = await liveSubscriptionById(trx, owner, id);
  if (!s) throw new DomainError('SUBSCRIPTION_NOT_FOUND');
  return s;
}

/** `eventTypes` are the owner's kind's (schemas.ts checked them). */
export async function createSubscription(
  tx: Tx,
  owner: WebhookOwner,
  input: { url: string; eventTypes: readonly string[] },
  now: Date,
) {
  const trx = tx.db;
  if ((await liveSubscriptionCount(trx, owner)) >= SUBSCRIPTIONS_PER_COMPANY)
    throw new DomainError('TOO_MANY_SUBSCRIPTIONS', `at most ${SUBSCRIPTIONS_PER_COMPANY} subscriptions per company`);
  const at = now.toISOString();
  const row: WebhookSubscriptionTable = {
    id: newId(),
    ...ownerColumns(owner),
    url: input.url,
    eventTypes: JSON.stringify([...new Set(input.eventTypes)]),
    secret: newSigningSecret(),
    previousSecret: null,
    previousSecretUntil: null,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  };
  await insertSubscription(trx, row);
  return { ...present(row, now), secret: row.secret };
}

export async function listSubscriptions(db: Db, owner: WebhookOwner, now: Date) {
  const rows = await liveSubscriptionsOf(db, owner);
  return { data: rows.map((r) => present(r, now)) };
}

/** Deliveries still due are dead-lettered by the sender when it reaches them (the subscription is gone). */
export async function deleteSubscription(tx: Tx, owner: WebhookOwner, id: string, now: Date) {
  const s = await liveSubscription(tx.db, owner, id);
  await markSubscriptionDeleted(tx.db, s.id, now.toISOString());
  return present(s, now);
}

/** A new secret signs from now on; the old one signs beside it for `overlapHours`. */
export async function rotateSecret(
  tx: Tx,
  owner: WebhookOwner,
  id: string,
  overlapHours: number | undefined,
  now: Date,
) {
  const s = await liveSubscription(tx.db, owner, id);
  const hours = overlapHours ?? DEFAULT_OVERLAP_HOURS;
  const changes = {
    secret: newSigningSecret(),
    previousSecret: hours > 0 ? s.secret : null,
    previousSecretUntil: hours > 0 ? new Date(now.getTime() + hours * 3_600_000).toISOString() : null,
    updatedAt: now.toISOString(),
  };
  await updateSubscriptionSecrets(tx.db, s.id, changes);
  return { ...present({ ...s, ...changes }, now), secret: changes.secret };
}

/** The cursor names the last event of a page; pages run from the newest to the oldest. */
const cursorOf = (seq: number) => Buffer.from(`e${seq}`).toString('base64url');
function seqOf(cursor: string): number {
  const m = /^e(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new DomainError('EVENT_NOT_FOUND', 'cursor not recognised');
  return Number(m[1]);
}

export async function listEvents(db: Db, owner: WebhookOwner, q: { limit: number; cursor?: string }) {
  const rows = await eventPageOf(db, owner, q.limit + 1, q.cursor ? seqOf(q.cursor) : undefined);
  const page = rows.slice(0, q.limit);
  const deliveries = page.length
    ? await deliveriesOfEvents(
        db,
        page.map((r) => r.eventId),
      )
    : [];
  return {
    data: page.map((r) => ({
      ...JSON.parse(r.body),
      deliveries: deliveries.filter((d) => d.eventId === r.eventId).map(presentDelivery),
    })),
    nextCursor: rows.length > q.limit ? cursorOf(Number(page.at(-1)!.id)) : null,
  };
}

async function companyEvent(db: Db, owner: WebhookOwner, eventId: string) {
  const e = await ownedEvent(db, owner, eventId);
  if (!e) throw new DomainError('EVENT_NOT_FOUND');
  return e;
}

/** Every delivery of an event with its attempts, oldest first. */
export async function eventDeliveries(db: Db, owner: WebhookOwner, eventId: string) {
  const e = await companyEvent(db, owner, eventId);
  const deliveries = await deliveriesOfEvent(db, e.eventId);
  const attempts = deliveries.length
    ? await attemptsOfDeliveries(
        db,
        deliveries.map((d) => d.id),
      )
    : [];
  return {
    data: deliveries.map((d) => ({
      ...presentDelivery(d),
      attemptLog: attempts
        .filter((a) => a.deliveryId === d.id)
        .map(
          (a): z.output<typeof Attempt> => ({
            attempt: a.attempt,
            at: a.at,
            httpStatus: a.httpStatus,
            error: a.error,
            latencyMs: a.latencyMs,
            nextAttemptAt: a.nextAttemptAt,
          }),
        ),
    })),
  };
}

/**
 * Sends an event again, with its id and body unchanged: a new delivery to the given subscription,
 * or to every live subscription of the company that takes the event's type.
 */
export async function replayEvent(
  tx: Tx,
  owner: WebhookOwner,
  eventId: string,
  subscriptionId: string | undefined,
  now: Date,
) {
  const e = await companyEvent(tx.db, owner, eventId);
  let targets: string[];
  if (subscriptionId) {
    targets = [(await liveSubscription(tx.db, owner, subscriptionId)).id];
  } else {
    const subs = await liveSubscriptionTypesOf(tx.db, owner);
    targets = subs.filter((s) => (JSON.parse(s.eventTypes) as string[]).includes(e.type)).map((s) => s.id);
  }
  if (!targets.length) throw new DomainError('SUBSCRIPTION_NOT_FOUND', `no live subscription takes ${e.type}`);
  const ids = await queueDeliveries(tx.db, e.eventId, targets, now);
  tx.after.deliveriesQueued();
  const rows = await deliveriesByIds(tx.db, ids);
  return { data: rows.map(presentDelivery) };
}
