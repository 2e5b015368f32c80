/**
 * What a marketplace redirect does to the parcel's locker order. An order whose parcel is not
 * yet in the cell follows the parcel: it moves to the new locker, or is withdrawn when the
 * parcel goes to a pickup point. A parcel already in a cell (or collected) cannot be
 * redirected from the platform: the locker side refuses (the spec's 502 "Postomat provider error").
 */
export type RedirectKind = 'POSTOMAT' | 'PICKUP';
export type LockerOrderStep = 'MOVE' | 'WITHDRAW' | 'CREATE' | 'NONE' | 'REFUSE';

export interface LinkedOrder {
  status: string;
  isActive: number;
}

export function lockerOrderOnRedirect(order: LinkedOrder | null | undefined, to: RedirectKind): LockerOrderStep {
  const open = order && order.isActive === 1 ? order.status : null;
  if (open === 'DELIVERED' || open === 'COMPLETED') return 'REFUSE';
  if (open === 'CREATED') return to === 'POSTOMAT' ? 'MOVE' : 'WITHDRAW';
  // No order, a withdrawn one, or one whose parcel staff took back out of the cell (SUBTRACTED).
  return to === 'POSTOMAT' ? 'CREATE' : 'NONE';
}
