/** Tables of migrations 022 and 023 (issue 22: webhook subscriptions, idempotency keys). */
import type { Generated } from 'kysely';

/** Whose a subscription or an event is (migration 027): a Locker API company or a platform company. */
export const WEBHOOK_OWNER_KINDS = ['LOCKER', 'PLATFORM'] as const;
export type WebhookOwnerKind = (typeof WEBHOOK_OWNER_KINDS)[number];

export interface WebhookSubscriptionTable {
  id: string;
  ownerKind: WebhookOwnerKind;
  /** the owner's id: a locker company's cuid2, or a platform company's integer id as text */
  companyId: string;
  url: string;
  /** JSON array of event types (events.ts) */
  eventTypes: string;
  /** signs every delivery; kept in clear because signing needs it (shown to the company once) */
  secret: string;
  /** the secret before the last rotation: it signs too until previousSecretUntil */
  previousSecret: string | null;
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface WebhookEventTable {
  /** orders the list; the cursor is built from it */
  id: Generated<number>;
  eventId: string;
  ownerKind: Generated<WebhookOwnerKind>;
  companyId: string;
  type: string;
  orderId: string | null;
  /** the JSON body every delivery of the event sends, byte for byte */
  body: string;
  createdAt: string;
}

/**
 * PENDING: due at nextAttemptAt; SENDING: claimed until claimedUntil (a sender that died leaves
 * it to be claimed again); DELIVERED: the receiver answered 2xx; DEAD: retries ran out (the
 * dead letter, replayable by id).
 */
export const DELIVERY_STATES = ['PENDING', 'SENDING', 'DELIVERED', 'DEAD'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface WebhookDeliveryTable {
  id: string;
  eventId: string;
  subscriptionId: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string;
  claimedBy: string | null;
  claimedUntil: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface WebhookAttemptTable {
  id: string;
  deliveryId: string;
  attempt: number;
  at: string;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  /** when the next attempt was planned after this one (null: none) */
  nextAttemptAt: string | null;
}

export interface LockerIdempotencyTable {
  companyId: string;
  key: string;
  requestHash: string;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: string;
}

export interface ExtensionTables {
  webhook_subscription: WebhookSubscriptionTable;
  webhook_event: WebhookEventTable;
  webhook_delivery: WebhookDeliveryTable;
  webhook_attempt: WebhookAttemptTable;
  locker_idempotency: LockerIdempotencyTable;
}
