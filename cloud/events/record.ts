/**
 * Writes the outbound events of a status change, inside the transaction that makes the change
 * (their rows: storage/outbox-queries.ts).
 */
import type { Db } from '../storage/database.ts';
import { queueOutboxEvents } from '../storage/outbox-queries.ts';
import { recipientPhone } from '../storage/recipient-queries.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { OrderAudience } from '../storage/order-audience.ts';
import { findOrderWebhooks } from '../storage/platform-webhook-queries.ts';
import { eventsForTransition, webhookSubtypeFor } from '../domain/order-events.ts';

/** `audience`: read once for all of the change's recorders (consequences.ts). */
export async function recordTransitionEvents(
  trx: Db,
  order: LockerOrderTable,
  to: string,
  at: Date,
  audience: Pick<OrderAudience, 'notificationUrl' | 'recipientPhone' | 'anyPlatformWebhook'>,
): Promise<number> {
  const subtype = webhookSubtypeFor(to);
  const events = eventsForTransition({
    orderId: order.id,
    to,
    sendMessage: order.sendMessage === 1,
    kind: order.kind,
    recipientPhone: audience.recipientPhone ?? '',
    companyNotificationUrl: audience.notificationUrl,
    // Platform webhooks live in the same database: matched in the same transaction.
    webhooks: subtype && audience.anyPlatformWebhook ? await findOrderWebhooks(trx, order, subtype) : [],
  });
  if (!events.length) return 0;
  await queueOutboxEvents(
    trx,
    events.map((e) => ({
      kind: e.kind,
      event: e.event,
      orderId: order.id,
      target: e.target,
      payload: JSON.stringify(e.payload),
      secretHeader: e.secretHeader,
    })),
    at.toISOString(),
  );
  return events.length;
}

/** The recipient's SMS a change after creation sends (issue 22), by the change's event type. */
const CHANGE_SMS: Record<string, string> = {
  // The text, read at sending time, names the new end date.
  'order.extended': 'STORAGE_EXTENDED',
  // The new locker and its new pickup code.
  'order.redirected': 'REDIRECTED',
};

/** The recipient's SMS after a change (extended, redirected): only for orders whose recipient gets messages. */
export function recordChangeSms(trx: Db, order: LockerOrderTable, type: string, at: Date): Promise<number> {
  const event = CHANGE_SMS[type];
  return event ? recordOrderSms(trx, order, event, at) : Promise.resolve(0);
}

/**
 * A return's sender gets the drop-off (DOWN) code when the return is created (issue 22): the
 * text, with the code, is rendered at sending time like every SMS. Only with sendMessage.
 */
export function recordDropOffSms(trx: Db, order: LockerOrderTable, at: Date): Promise<number> {
  return order.kind === 'RETURN' ? recordOrderSms(trx, order, 'DROP_OFF_CODE', at) : Promise.resolve(0);
}

async function recordOrderSms(trx: Db, order: LockerOrderTable, event: string, at: Date): Promise<number> {
  if (order.sendMessage !== 1) return 0;
  // A return's phone is its sender's: after the drop-off code it has nothing to collect, and a
  // pickup text (extended, redirected) would carry the courier's UP code to them.
  if (order.kind === 'RETURN' && event !== 'DROP_OFF_CODE') return 0;
  const recipient = await recipientPhone(trx, order.toUserId);
  if (!recipient) return 0;
  await queueOutboxEvents(
    trx,
    [
      {
        kind: 'SMS',
        event,
        orderId: order.id,
        target: recipient.phone,
        payload: JSON.stringify({ orderId: order.id }),
        secretHeader: null,
      },
    ],
    at.toISOString(),
  );
  return 1;
}
