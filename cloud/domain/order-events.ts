/**
 * Which outbound events a locker order's status change causes (the spec's Events section):
 * - COMPLETED and SUBTRACTED: a notification to the company URL, when one is set;
 * - DELIVERED: the recipient's SMS when the order has sendMessage, and PARCEL /
 *   DELIVERED_TO_POSTOMAT webhooks (status 0);
 * - COMPLETED: PARCEL / TRANSFERRED_TO_CLIENT webhooks (status 1);
 * - never anything for CREATED.
 * A RETURN (an extension) follows the same rules but one: its phone is the sender's, who
 * dropped the parcel off, so its placement sends no pickup code to that phone (the UP code is
 * the collecting courier's, read by the company); the sender got the DOWN code at creation.
 * Pure rules: the caller loads the facts and writes the rows.
 */
import type { OrderKind } from '../../shared/mqtt/schemas.ts';
import type { EventKind } from './event-kinds.ts';
import type { WebhookSubtype } from './platform/enums.ts';

export interface WebhookTarget {
  url: string;
  payloadTemplate: string | null;
  apiKey: string | null;
}

export interface TransitionFacts {
  orderId: string;
  to: string;
  sendMessage: boolean;
  /** absent: DELIVERY */
  kind?: OrderKind;
  recipientPhone: string;
  companyNotificationUrl: string | null;
  /** webhooks of the matching subtype for this order's companies */
  webhooks: WebhookTarget[];
}

export interface NewEvent {
  kind: EventKind;
  event: string;
  target: string;
  payload: unknown;
  secretHeader: string | null;
}

/** The platform webhook subtypes a locker order's status change sends, with the `status` their body carries. */
export const WEBHOOK_STATUS = { DELIVERED_TO_POSTOMAT: 0, TRANSFERRED_TO_CLIENT: 1 } as const satisfies Partial<
  Record<WebhookSubtype, number>
>;
export type OrderWebhookSubtype = keyof typeof WEBHOOK_STATUS;

/** The webhook subtype a transition emits, if any. */
export function webhookSubtypeFor(to: string): OrderWebhookSubtype | undefined {
  if (to === 'DELIVERED') return 'DELIVERED_TO_POSTOMAT';
  if (to === 'COMPLETED') return 'TRANSFERRED_TO_CLIENT';
  return undefined;
}

export function eventsForTransition(f: TransitionFacts): NewEvent[] {
  const out: NewEvent[] = [];
  if ((f.to === 'COMPLETED' || f.to === 'SUBTRACTED') && f.companyNotificationUrl) {
    // The status is read again at sending time, as the spec says; the row keeps the order id.
    out.push({
      kind: 'COMPANY_NOTIFICATION',
      event: f.to,
      target: f.companyNotificationUrl,
      payload: { orderId: f.orderId },
      secretHeader: null,
    });
  }
  if (f.to === 'DELIVERED' && f.sendMessage && f.kind !== 'RETURN') {
    // Only the order id: the text, with the pickup code, is rendered when it is sent.
    out.push({
      kind: 'SMS',
      event: 'PICKUP_CODE',
      target: f.recipientPhone,
      payload: { orderId: f.orderId },
      secretHeader: null,
    });
  }
  const subtype = webhookSubtypeFor(f.to);
  if (subtype) {
    for (const w of f.webhooks) {
      out.push({
        kind: 'WEBHOOK',
        event: subtype,
        target: w.url,
        payload: { postomatOrderId: f.orderId, status: WEBHOOK_STATUS[subtype], payloadTemplate: w.payloadTemplate },
        secretHeader: w.apiKey,
      });
    }
  }
  return out;
}
