/**
 * Writes an integrator event, inside the transaction of the change it reports: the event (its
 * body fixed now, so every delivery and replay sends the same bytes) and one PENDING delivery per
 * live subscription of the owner that asked for its type. A company without subscriptions costs
 * one indexed read and nothing more (none at a status change, whose audience is read once:
 * storage/order-audience.ts). Platform companies' events: platform-record.ts. The rows:
 * storage/webhook-event-queries.ts.
 */
import type { Db } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import {
  insertWebhookEvent,
  liveSubscriptionTypes,
  queueDeliveries,
  type LiveSubscription,
} from '../storage/webhook-event-queries.ts';
import { presentOrder } from '../locker-api/present.ts';
import type { WebhookEventType } from './schemas.ts';
import { lockerOwner, type WebhookOwner } from './owner.ts';

/**
 * The event a status change is, if any (CREATED has its own call at creation). A return's
 * placement and collection have their own types: the sender dropped it off, a courier collected it.
 */
export function eventTypeForStatus(to: string, kind?: string): WebhookEventType | undefined {
  const isReturn = kind === 'RETURN';
  if (to === 'DELIVERED') return isReturn ? 'order.dropped_off' : 'order.delivered';
  if (to === 'COMPLETED') return isReturn ? 'order.collected' : 'order.completed';
  if (to === 'SUBTRACTED') return 'order.subtracted';
  return undefined;
}

export async function recordIntegratorEvent(
  trx: Db,
  order: LockerOrderTable,
  type: WebhookEventType,
  at: Date,
  subscriptions?: readonly LiveSubscription[],
): Promise<number> {
  return recordOwnerEvent(
    trx,
    lockerOwner(order.companyId),
    type,
    order.id,
    () => presentOrder(order),
    at,
    subscriptions,
  );
}

/**
 * The event for one owner (a Locker API or a platform company): written with its deliveries
 * only when a live subscription of the owner takes its type. `object` is built only then.
 * `subscriptions`: the owner's live subscriptions when the caller has read them already.
 */
export async function recordOwnerEvent(
  trx: Db,
  owner: WebhookOwner,
  type: string,
  orderId: string | null,
  object: () => unknown,
  at: Date,
  known?: readonly LiveSubscription[],
): Promise<number> {
  const subscriptions = known ?? (await liveSubscriptionTypes(trx, owner));
  const wanted = subscriptions.filter((s) => (JSON.parse(s.eventTypes) as string[]).includes(type));
  if (!wanted.length) return 0;
  const createdAt = at.toISOString();
  const eventId = `evt_${newId()}`;
  const body = JSON.stringify({ id: eventId, type, createdAt, data: { object: object() } });
  await insertWebhookEvent(trx, owner, { eventId, type, orderId, body, createdAt });
  await queueDeliveries(
    trx,
    eventId,
    wanted.map((s) => s.id),
    at,
  );
  return wanted.length;
}
