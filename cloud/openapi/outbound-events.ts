/**
 * The bodies the service POSTs to integrators (the spec's Events), as OpenAPI `webhooks`.
 * events/dispatcher.ts and events/webhook-body.ts write them; the contract tests check what
 * they send against these schemas.
 */
import { z } from 'zod';
import { ORDER_STATUSES } from '../domain/order-states.ts';
import { WEBHOOK_STATUS } from '../domain/order-events.ts';
import { PlatformWebhookEvent, WebhookEvent } from '../webhooks/schemas.ts';

export const CompanyNotification = z
  .object({
    orderId: z.string().meta({ description: 'the locker order id' }),
    status: z
      .enum(ORDER_STATUSES)
      .meta({ description: 'the status at sending time; sent for COMPLETED and SUBTRACTED only' }),
  })
  .meta({ id: 'CompanyNotification' });

export const PlatformWebhookBody = (status: number) =>
  z.object({
    postomatOrderId: z.string().meta({ description: 'the locker order id' }),
    status: z.literal(status),
  });

export const OUTBOUND_EVENTS = {
  companyOrderStatus: {
    summary: 'Order status notification to the company URL',
    description:
      'POST to the URL the operator set for the company, when a locker order becomes COMPLETED (recipient took the parcel) or SUBTRACTED. ' +
      'DELIVERED is not sent (read orders to detect it). No signature, no secret, one attempt, the answer is ignored: ' +
      'treat it as a signal and read the order (`GET /order/{id}?withCurrentStatus=true`) before acting.',
    body: CompanyNotification,
    apiKeyHeader: false,
  },
  parcelDeliveredToPostomat: {
    summary: 'Platform webhook PARCEL / DELIVERED_TO_POSTOMAT',
    description:
      'Sent when the parcel is placed in a locker, to the webhook `url`, body built from its `payloadTemplate` with exactly these two fields. ' +
      "Header `x-api-key` carries the webhook's `apiKey` when set. Any 2xx is success; one attempt, no retry; duplicates are possible.",
    body: PlatformWebhookBody(WEBHOOK_STATUS.DELIVERED_TO_POSTOMAT),
    apiKeyHeader: true,
  },
  parcelTransferredToClient: {
    summary: 'Platform webhook PARCEL / TRANSFERRED_TO_CLIENT',
    description:
      'Sent when the recipient collects the parcel (the locker order becomes COMPLETED). Same delivery rules as DELIVERED_TO_POSTOMAT.',
    body: PlatformWebhookBody(WEBHOOK_STATUS.TRANSFERRED_TO_CLIENT),
    apiKeyHeader: true,
  },
  subscriptionEvent: {
    summary: 'Webhook subscription event (extension)',
    description:
      "Sent to each URL a Locker API company subscribed (`/webhook-subscriptions`) for the event's type: `order.created`, `order.delivered`, `order.completed`, `order.subtracted`, `order.cancelled`, `order.extended`, `order.redirected`, `order.expired` (a sized order's reservation lapsed unplaced). " +
      'Signed: `Locker-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, one `v1` per signing secret (two while a secret rotates). ' +
      'A 2xx answer delivers it; anything else is retried with exponential backoff and jitter for up to 24 hours, then dead-lettered; the same `id` on every attempt and replay (docs/integrators.md).',
    body: WebhookEvent,
    apiKeyHeader: false,
    signatureHeader: true,
    answer: 'Any 2xx delivers the event; another answer, or none within the timeout, is retried.',
  },
  platformSubscriptionEvent: {
    summary: 'Platform webhook subscription event (extension)',
    description:
      "Sent to each URL a platform company's administrator subscribed (`/api/v1/logistic-company/webhook-subscriptions`) for the event's type: " +
      "`parcel.delivered_to_postomat` (the parcel placed in a locker, `status` 0) and `parcel.transferred_to_client` (collected, `status` 1), for the locker orders the spec's platform webhooks report to the company. " +
      "Same envelope, signature, retries, dead letter and replay as the Locker API's subscription events; the spec's one-attempt webhooks are sent beside them unchanged.",
    body: PlatformWebhookEvent,
    apiKeyHeader: false,
    signatureHeader: true,
    answer: 'Any 2xx delivers the event; another answer, or none within the timeout, is retried.',
  },
} as const;
