/**
 * Outbound events. A row is written in the transaction that causes it; the dispatcher sends
 * it once (the spec: one attempt, no retries) and records the outcome in the same row,
 * which the operator reads as the delivery log.
 */
import type { EventKind, EventState } from '../domain/event-kinds.ts';

// Named here too for the storage side; owned by the domain (domain/event-kinds.ts).
export { EVENT_KINDS, type EventKind, type EventState } from '../domain/event-kinds.ts';

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
