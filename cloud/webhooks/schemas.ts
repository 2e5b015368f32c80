/** Shapes of the webhook subscriptions extension (issue 22): requests, answers and the event body, once. */
import { z } from 'zod';
import { cuid2, integer, qInt } from '../http/query.ts';
import { Order, isoTime } from '../locker-api/responses.ts';
import { DELIVERY_STATES } from './tables.ts';

export const WEBHOOK_EVENT_TYPES = [
  'order.created',
  'order.delivered',
  'order.completed',
  'order.subtracted',
  'order.cancelled',
  'order.extended',
  'order.redirected',
  'order.expired',
  // A return's steps (kind RETURN): the sender dropped it off, a courier collected it.
  'order.dropped_off',
  'order.collected',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'WebhookEventType' });
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Bounds of what a company may register. */
export const SUBSCRIPTION_URL_MAX = 2048;
export const SUBSCRIPTIONS_PER_COMPANY = 20;
export const ROTATION_OVERLAP_HOURS_MAX = 168;

export const WebhookEvent = z
  .object({
    id: z.string().meta({
      description: 'the event id: the same on every delivery and replay (de-duplicate by it)',
      example: 'evt_ckx1a2b3c4d5e6f7g8h9',
    }),
    type: WebhookEventType,
    createdAt: isoTime(),
    data: z.object({ object: Order }),
  })
  .meta({ id: 'WebhookEvent', description: 'What every subscription delivery POSTs, signed in `Locker-Signature`.' });

export const Subscription = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(WebhookEventType),
    createdAt: isoTime(),
    secretRotatedUntil: isoTime().nullable().meta({ description: 'while set, the previous secret signs too' }),
  })
  .meta({ id: 'WebhookSubscription' });

export const SubscriptionWithSecret = Subscription.extend({
  secret: z.string().meta({ description: 'the signing secret: shown only here, keep it', example: 'whsec_…' }),
}).meta({ id: 'WebhookSubscriptionWithSecret' });

export const SubscriptionList = z.object({ data: z.array(Subscription) });

export const DeliveryState = z.enum(DELIVERY_STATES);
export const Delivery = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    state: DeliveryState,
    attempts: z.int(),
    nextAttemptAt: isoTime().nullable(),
    lastStatus: z.int().nullable(),
    lastError: z.string().nullable(),
    createdAt: isoTime(),
    finishedAt: isoTime().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const Attempt = z
  .object({
    attempt: z.int(),
    at: isoTime(),
    httpStatus: z.int().nullable(),
    error: z.string().nullable(),
    latencyMs: z.int().nullable(),
    nextAttemptAt: isoTime()
      .nullable()
      .meta({ description: 'when the next attempt was planned (null: delivered, or the dead letter)' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const DeliveryWithAttempts = Delivery.extend({ attemptLog: z.array(Attempt) });

export const EventPage = z.object({
  data: z.array(WebhookEvent.extend({ deliveries: z.array(Delivery) })),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'pass as `cursor` for the next (older) page; null at the end' }),
});
export const EventDeliveries = z.object({ data: z.array(DeliveryWithAttempts) });
export const ReplayAnswer = z.object({ data: z.array(Delivery) });

export const CreateSubscriptionBody = z.object({
  url: z.string().trim().max(SUBSCRIPTION_URL_MAX).meta({
    description: 'an http(s) URL the service may reach (WEBHOOK_ALLOW_HOSTS)',
    example: 'https://example.com/locker-events',
  }),
  eventTypes: z.array(WebhookEventType).min(1).max(WEBHOOK_EVENT_TYPES.length),
});
export const RotateSecretBody = z.object({
  overlapHours: integer()
    .min(0)
    .max(ROTATION_OVERLAP_HOURS_MAX)
    .optional()
    .meta({ description: 'how long the previous secret keeps signing (default 24)' }),
});
export const ReplayBody = z.object({
  subscriptionId: cuid2()
    .optional()
    .meta({ description: "replay to this subscription only (default: every subscription of the event's type)" }),
});
export const EventListQuery = z.object({
  limit: qInt(integer().min(1).max(100)).default(20),
  cursor: z.string().max(64).optional(),
});
export const EventIdParams = z.object({
  id: z.string().regex(/^evt_[a-z0-9]{2,40}$/, { error: 'must be an event id (evt_…)' }),
});

/**
 * Platform companies' subscriptions (issue 22, `/api/v1/logistic-company/webhook-subscriptions`):
 * the events the spec's platform webhooks carry (PARCEL DELIVERED_TO_POSTOMAT, status 0, and
 * TRANSFERRED_TO_CLIENT, status 1), in the same envelope, signature and delivery rules. The
 * shapes of subscriptions, deliveries and attempts are the Locker API's; only the event types
 * and the event's object differ.
 */
export const PLATFORM_WEBHOOK_EVENT_TYPES = ['parcel.delivered_to_postomat', 'parcel.transferred_to_client'] as const;
export const PlatformWebhookEventType = z.enum(PLATFORM_WEBHOOK_EVENT_TYPES).meta({ id: 'PlatformWebhookEventType' });
export type PlatformWebhookEventType = z.infer<typeof PlatformWebhookEventType>;

export const PlatformParcelEventObject = z
  .object({
    postomatOrderId: z.string().meta({ description: "the locker order, as in the spec's platform webhooks" }),
    status: z.int().meta({
      description: "as in the spec's platform webhooks: 0 placed in the locker, 1 collected by the recipient",
    }),
    subtype: z.enum(['DELIVERED_TO_POSTOMAT', 'TRANSFERRED_TO_CLIENT']),
    postomatId: z.string().meta({ description: 'the locker' }),
    parcels: z.array(z.object({ id: z.int(), trackCode: z.string() })).meta({
      description:
        "the company's parcels this locker order delivers (empty when the company hears of the order through its locker company link)",
    }),
  })
  .meta({ id: 'PlatformParcelEventObject' });

export const PlatformWebhookEvent = z
  .object({
    id: WebhookEvent.shape.id,
    type: PlatformWebhookEventType,
    createdAt: isoTime(),
    data: z.object({ object: PlatformParcelEventObject }),
  })
  .meta({
    id: 'PlatformWebhookEvent',
    description: "What every delivery of a platform company's subscription POSTs, signed in `Locker-Signature`.",
  });

export const PlatformSubscription = Subscription.extend({ eventTypes: z.array(PlatformWebhookEventType) }).meta({
  id: 'PlatformWebhookSubscription',
});
export const PlatformSubscriptionWithSecret = PlatformSubscription.extend({
  secret: SubscriptionWithSecret.shape.secret,
}).meta({ id: 'PlatformWebhookSubscriptionWithSecret' });
export const PlatformSubscriptionList = z.object({ data: z.array(PlatformSubscription) });
export const PlatformEventPage = EventPage.extend({
  data: z.array(PlatformWebhookEvent.extend({ deliveries: z.array(Delivery) })),
});
export const CreatePlatformSubscriptionBody = CreateSubscriptionBody.extend({
  eventTypes: z.array(PlatformWebhookEventType).min(1).max(PLATFORM_WEBHOOK_EVENT_TYPES.length),
});
