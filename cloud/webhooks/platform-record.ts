/**
 * Platform companies' subscription events (issue 22), in the transaction of the locker order's
 * status change: the changes the spec's platform webhooks report (placement, status 0;
 * collection, status 1) reach every platform company the order's events reach
 * (storage/platform-webhook-queries.ts), one event per company with a subscription taking the
 * type. The event names the company's own parcels only, so no company learns of another's.
 */
import type { Db } from '../storage/database.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import { findOrderPlatformCompanies, parcelsOfOrder } from '../storage/platform-webhook-queries.ts';
import { platformCompaniesSubscribed } from '../storage/webhook-event-queries.ts';
import { WEBHOOK_STATUS, webhookSubtypeFor } from '../domain/order-events.ts';
import { platformOwner } from './owner.ts';
import { recordOwnerEvent } from './record.ts';
import type { PlatformParcelEventObject, PlatformWebhookEventType } from './schemas.ts';
import type { z } from 'zod';

const TYPE_OF = {
  DELIVERED_TO_POSTOMAT: 'parcel.delivered_to_postomat',
  TRANSFERRED_TO_CLIENT: 'parcel.transferred_to_client',
} as const satisfies Record<keyof typeof WEBHOOK_STATUS, PlatformWebhookEventType>;

/** `anyPlatformSubscription`: read with the change's other audience (storage/order-audience.ts). */
export async function recordPlatformEvents(
  trx: Db,
  order: LockerOrderTable,
  to: string,
  at: Date,
  anyPlatformSubscription: boolean,
): Promise<number> {
  const subtype = webhookSubtypeFor(to);
  // Without any platform subscription (the usual case) nothing more is read.
  if (!subtype || !anyPlatformSubscription) return 0;
  const companies = await findOrderPlatformCompanies(trx, order);
  if (!companies.length) return 0;
  const subscribed = await platformCompaniesSubscribed(trx, companies);
  if (!subscribed.length) return 0;
  const parcels = await parcelsOfOrder(trx, order.id);
  let queued = 0;
  for (const { companyId } of subscribed) {
    const id = Number(companyId);
    const object = (): z.output<typeof PlatformParcelEventObject> => ({
      postomatOrderId: order.id,
      status: WEBHOOK_STATUS[subtype],
      subtype,
      postomatId: order.postomatId,
      parcels: parcels
        .filter((p) => Number(p.companyId) === id || (p.partnerCompanyId !== null && Number(p.partnerCompanyId) === id))
        .map((p) => ({ id: Number(p.id), trackCode: p.trackCode })),
    });
    queued += await recordOwnerEvent(trx, platformOwner(id), TYPE_OF[subtype], order.id, object, at);
  }
  return queued;
}
