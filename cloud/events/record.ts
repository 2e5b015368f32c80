/** Writes the outbound events of a status change, inside the transaction that makes the change. */
import type { Db } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import { eventsForTransition, webhookSubtypeFor, type WebhookSubtype, type WebhookTarget } from './order-events.ts';

/**
 * Finds the webhooks that match an order's event. The platform side registers the lookup
 * (webhooks belong to platform companies); without it no webhook matches.
 */
export type WebhookLookup = (trx: Db, order: LockerOrderTable, subtype: WebhookSubtype) => Promise<WebhookTarget[]>;
let webhookLookup: WebhookLookup = async () => [];
export function setWebhookLookup(lookup: WebhookLookup): void {
  webhookLookup = lookup;
}

export async function recordTransitionEvents(trx: Db, order: LockerOrderTable, to: string, at: Date): Promise<number> {
  const [company, recipient] = await Promise.all([
    trx.selectFrom('locker_company').select('notificationUrl').where('id', '=', order.companyId).executeTakeFirst(),
    trx.selectFrom('recipient').select('phone').where('id', '=', order.toUserId).executeTakeFirst(),
  ]);
  const subtype = webhookSubtypeFor(to);
  const events = eventsForTransition({
    orderId: order.id,
    to,
    sendMessage: order.sendMessage === 1,
    recipientPhone: recipient?.phone ?? '',
    companyNotificationUrl: company?.notificationUrl ?? null,
    webhooks: subtype ? await webhookLookup(trx, order, subtype) : [],
  });
  if (!events.length) return 0;
  const createdAt = at.toISOString();
  await trx
    .insertInto('outbox_event')
    .values(
      events.map((e) => ({
        id: newId(),
        kind: e.kind,
        event: e.event,
        orderId: order.id,
        target: e.target,
        payload: JSON.stringify(e.payload),
        secretHeader: e.secretHeader,
        state: 'PENDING' as const,
        claimedBy: null,
        claimedUntil: null,
        httpStatus: null,
        error: null,
        latencyMs: null,
        createdAt,
        sentAt: null,
      })),
    )
    .execute();
  return events.length;
}
