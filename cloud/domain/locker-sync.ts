/**
 * Rules of the cloud ⇄ locker sync, free of MQTT and storage: what to send an agent that
 * announced its sync version, which orders a locker's agent holds, and what an event from a
 * locker may do to an order.
 */
import { OPEN_STATUSES, canTransition, type CloudOrderStatus, type OrderStatus } from './order-states.ts';

export type SyncPlan = { kind: 'none' } | { kind: 'full' } | { kind: 'delta'; since: number };

/**
 * `reported`: the version the agent holds; `current`: the locker's latest change; `floor`:
 * changes at or below it are no longer on record. A fresh store (0), an agent ahead of us
 * (the cloud's database was replaced) or one older than the record gets a full snapshot.
 */
export function planSync(reported: number, current: number, floor: number): SyncPlan {
  if (reported === current) return { kind: 'none' };
  if (reported === 0 || reported > current || reported < floor) return { kind: 'full' };
  return { kind: 'delta', since: reported };
}

/** The agent of a locker holds exactly its active orders whose parcel is still to be placed or collected. */
export function heldByLocker(
  order: { postomatId: string; status: string; isActive: number },
  lockerId: string,
): boolean {
  return order.postomatId === lockerId && order.isActive === 1 && OPEN_STATUSES.includes(order.status as OrderStatus);
}

const TRANSITION_OF = { PLACED: 'DELIVERED', PICKED_UP: 'COMPLETED', SUBTRACTED: 'SUBTRACTED' } as const;
type OrderEventType = keyof typeof TRANSITION_OF;
const isOrderEvent = (type: string): type is OrderEventType => type in TRANSITION_OF;

export type EventDecision =
  /** move the order to `to` (with the event recorded in the same transaction) */
  | { action: 'apply'; to: OrderStatus }
  /** nothing to do to an order: keep the event for the operator */
  | { action: 'store' }
  /** never applicable: record why, acknowledge, never apply */
  | { action: 'reject'; reason: string }
  /** not yet applicable (the placement it follows is not in yet): no ack, the agent sends it again */
  | { action: 'wait'; reason: string };

export interface EventFacts {
  type: string;
  orderId?: string;
  /** whether the event's cellId names a cell of this locker (only asked for PLACED) */
  cellKnown: boolean;
  /** the order it names, if it exists */
  order?: { postomatId: string; status: string };
  lockerId: string;
  /** a placement of this order by this locker was already refused or set aside: it will not come */
  placementRefused?: boolean;
}

/**
 * A locker's word is trusted only about its own orders, and only for the state machine's next
 * step. An unknown order and another locker's order read the same ("not an order of this
 * locker"), so a locker learns nothing about other lockers from the answer.
 */
export function decideLockerEvent(f: EventFacts): EventDecision {
  if (!isOrderEvent(f.type)) return { action: 'store' };
  if (!f.orderId) return { action: 'reject', reason: `${f.type} without an order` };
  if (!f.order || f.order.postomatId !== f.lockerId) return { action: 'reject', reason: 'not an order of this locker' };
  if (f.type === 'PLACED' && !f.cellKnown) return { action: 'reject', reason: 'no such cell at this locker' };
  const from = f.order.status as CloudOrderStatus;
  const to = TRANSITION_OF[f.type];
  if (canTransition(from, to)) return { action: 'apply', to };
  // Collected or taken out before the placement is in: the placement comes first from the
  // agent's outbox, so this one waits for it rather than being lost.
  if (from === 'CREATED' && f.type !== 'PLACED') {
    if (f.placementRefused)
      return {
        action: 'reject',
        reason: `order is CREATED and its placement was not applied: ${f.type} cannot follow it`,
      };
    return { action: 'wait', reason: `order is CREATED, ${f.type} needs its placement first` };
  }
  return { action: 'reject', reason: `order is ${from}, cannot become ${to}` };
}

/** Events of another kind keep what the operator needs to know, and never a code. */
export function eventDetail(e: { reason?: string; fault?: string; until?: string }): string | null {
  return e.reason ?? e.fault ?? (e.until ? `until ${e.until}` : null);
}

/**
 * An event that fails with an error the cloud did not expect (a fault of the cloud, or of the
 * data, not of the network) is tried again when the agent resends it, up to this many times
 * in all; then it is set aside as FAILED, acknowledged, and an alarm is raised. A database that
 * is unavailable is not counted: the agent keeps resending until it is back.
 */
export const DEFAULT_EVENT_MAX_ATTEMPTS = 5;

/** A wait counts as an attempt too: a pickup whose placement never comes must not wait for ever. */
export function giveUpAfter(attempts: number, maxAttempts: number): boolean {
  return attempts >= maxAttempts;
}

const ORDER_EVENTS: readonly string[] = Object.keys(TRANSITION_OF);

/**
 * Events the operator must look at: an order event the cloud would not or could not apply
 * means the locker and the cloud disagree about a parcel (one may be locked in a cell while
 * its order says otherwise). Events about no order (a jammed lock, a wrong code) are stored,
 * not alarmed.
 */
export function alarmsOperator(type: string, outcome: 'APPLIED' | 'STORED' | 'REJECTED' | 'FAILED'): boolean {
  return ORDER_EVENTS.includes(type) && (outcome === 'REJECTED' || outcome === 'FAILED');
}
