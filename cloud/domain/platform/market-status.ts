/**
 * The marketplace's view of a parcel (GET /parcel/track-code/{trackCode}/status): four
 * values folded from the parcel's status, where it is, and its locker order.
 */
import type { MarketStatus, ParcelStatus } from './enums.ts';

export interface MarketStatusFacts {
  status: ParcelStatus;
  /** 1 while its current warehouse is a pickup point */
  atPickupPoint: boolean;
  /** set by a redirect until the parcel reaches its new point */
  redirectedAt: string | null;
  /** status of its current locker order (CREATED, DELIVERED, COMPLETED, SUBTRACTED), if any */
  lockerOrderStatus?: string | null;
}

export function marketStatus(f: MarketStatusFacts): MarketStatus {
  // Handed over, by staff or from the locker cell.
  if (f.status === 'TRANSFERRED' || f.status === 'COMPLETED' || f.lockerOrderStatus === 'COMPLETED')
    return 'TRANSFERRED_TO_CLIENT';
  // Placed in the (new) locker: the recipient can collect it.
  if (f.lockerOrderStatus === 'DELIVERED') return 'ARRIVED';
  if (f.redirectedAt !== null || f.status === 'REDIRECT_TO_PVZ') return 'REDIRECTED';
  if (f.status === 'ARRIVED' || (f.status === 'RECEIVED' && f.atPickupPoint)) return 'ARRIVED';
  return 'CREATED';
}
