/**
 * Bounds that keep one company from taking a shared locker from the others: orders still
 * waiting for their parcel (CREATED) hold three codes each at the locker, so their number per
 * company and locker is capped, and an order never placed is archived after a while, its codes
 * freed (docs/decisions.md).
 */

/** Integrators book dozens of parcels ahead into one locker; a few hundred leaves room for that. */
export const DEFAULT_PENDING_ORDERS_PER_LOCKER = 500;
/** Below this a busy integrator booking ahead would be refused: the setting may not go lower. */
export const MIN_PENDING_ORDERS_PER_LOCKER = 100;

/** An order whose parcel has not been placed this many days after its creation is archived. */
export const DEFAULT_UNPLACED_ORDER_DAYS = 30;

const DAY_MS = 86_400_000;

/** Orders created before this instant and still unplaced are due for expiry. */
export function unplacedCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}
