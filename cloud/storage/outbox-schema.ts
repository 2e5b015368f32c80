/**
 * Outbound events. A row is written in the transaction that causes it; the dispatcher sends
 * it once (the spec: one attempt, no retries) and records the outcome in the same row,
 * which the operator reads as the delivery log.
 */
export const EVENT_KINDS = ['COMPANY_NOTIFICATION', 'WEBHOOK', 'SMS'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * PENDING: waiting; SENDING: claimed by a dispatcher until its lease ends (a dispatcher that
 * died mid-send leaves it to be claimed again: a receiver may see a duplicate, which the spec
 * allows); SENT: the receiver answered (2xx for webhooks; any answer for notifications, whose
 * response the spec ignores); FAILED: no answer, timeout or non-2xx; SKIPPED: sending is
 * switched off by configuration.
 */
export type EventState = 'PENDING' | 'SENDING' | 'SENT' | 'FAILED' | 'SKIPPED';

export interface OutboxEventTable {
  id: string;
  kind: EventKind;
  /** what happened, e.g. COMPLETED, DELIVERED_TO_POSTOMAT, PICKUP_CODE */
  event: string;
  orderId: string | null;
  /** URL, or the phone number for SMS */
  target: string;
  /** the JSON body; for SMS only what is needed to render the text at send time (no code) */
  payload: string;
  /** a webhook's x-api-key value: never shown in the delivery log */
  secretHeader: string | null;
  state: EventState;
  claimedBy: string | null;
  claimedUntil: string | null;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  createdAt: string;
  sentAt: string | null;
}
