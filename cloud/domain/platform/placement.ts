/**
 * Where a parcel or cargo item is after a status change, and the two facts the list filters
 * need: whether it sits at a pickup point (the spec counts RECEIVED there as ARRIVED) and
 * whether it has reached its final point (`arrivedAtFinal`, `strictArrived`).
 *
 * Final point, as the spec lists it: a pickup point, the item's own delivery warehouse, a
 * locker, or the recipient's door. A parcel is there while it waits in RECEIVED or ARRIVED at
 * a pickup point or at its delivery warehouse; or in ARRIVED with no warehouse when it goes to
 * a locker or by courier (staff record the arrival in the locker or at the door that way).
 */
import { DomainError } from '../errors.ts';
import type { CargoStatus, DeliveryMethod, ParcelStatus } from './enums.ts';

export interface WarehouseFacts {
  id: number;
  isPickupPoint: boolean;
}

export interface ParcelPlace {
  status: ParcelStatus;
  deliveryMethod: DeliveryMethod | null;
  originWarehouseId: number | null;
  currentWarehouseId: number | null;
  deliveryWarehouseId: number | null;
  redirectedAt: string | null;
}

export interface ParcelPlaceAfter extends ParcelPlace {
  atPickupPoint: boolean;
  atFinalPoint: boolean;
}

export interface PlaceChange<S> {
  to: S;
  /** where the change happens: the warehouse that receives, packs or sends the item */
  warehouse?: WarehouseFacts | null;
  /** the next point: SENT's destination (recorded), REDIRECT_TO_PVZ's pickup point */
  destination?: WarehouseFacts | null;
  /** facts of the current warehouse, when the change keeps the item where it is */
  current?: WarehouseFacts | null;
  at: Date;
}

/** Statuses in which the item is no longer in any warehouse. */
const PARCEL_AWAY: readonly ParcelStatus[] = ['SENT', 'COURIER_RECEIVED', 'TRANSFERRED', 'COMPLETED', 'LOST'];
const CARGO_AWAY: readonly CargoStatus[] = ['SENT', 'TRANSFERRED', 'LOST'];
/** Delivery methods whose last stop is not a warehouse. */
const DOOR_OR_LOCKER: readonly (DeliveryMethod | null)[] = ['POSTOMAT', 'COURIER'];

const refuse = (message: string) => new DomainError('NOT_ACCEPTABLE', message);

export function parcelPlaceAfter(p: ParcelPlace, change: PlaceChange<ParcelStatus>): ParcelPlaceAfter {
  const next: ParcelPlace = { ...p, status: change.to };
  const w = change.warehouse ?? null;
  let here: WarehouseFacts | null =
    p.currentWarehouseId !== null && change.current?.id === p.currentWarehouseId ? change.current : null;

  if (change.to === 'RECEIVED' && !w) throw refuse('RECEIVED needs the warehouse that received the parcel');
  if (change.to === 'ARRIVED' && !w && !DOOR_OR_LOCKER.includes(p.deliveryMethod)) {
    throw refuse('ARRIVED needs a warehouse, unless the parcel goes to a locker or by courier');
  }
  if (change.to === 'REDIRECT_TO_PVZ') {
    if (!change.destination?.isPickupPoint) throw refuse('REDIRECT_TO_PVZ needs a pickup point as destination');
    next.deliveryWarehouseId = change.destination.id;
    next.deliveryMethod = 'PICKUP';
    next.redirectedAt = change.at.toISOString();
  }

  if (PARCEL_AWAY.includes(change.to)) {
    // COMPLETED only settles a TRANSFERRED parcel: it stays wherever that left it (nowhere).
    next.currentWarehouseId = null;
    here = null;
  } else if (w) {
    next.currentWarehouseId = w.id;
    here = w;
  } else if (change.to === 'ARRIVED') {
    next.currentWarehouseId = null; // in the locker, or at the door
    here = null;
  }
  if (next.originWarehouseId === null && change.to === 'RECEIVED') next.originWarehouseId = w!.id;

  const atPickupPoint = here?.isPickupPoint === true;
  const atFinalPoint = parcelAtFinalPoint(next, atPickupPoint);
  // A redirected parcel shows REDIRECTED until it reaches its new point.
  if (atFinalPoint && change.to !== 'REDIRECT_TO_PVZ') next.redirectedAt = null;
  return { ...next, atPickupPoint, atFinalPoint };
}

export function parcelAtFinalPoint(
  p: Pick<ParcelPlace, 'status' | 'deliveryMethod' | 'currentWarehouseId' | 'deliveryWarehouseId'>,
  atPickupPoint: boolean,
): boolean {
  if (p.status !== 'RECEIVED' && p.status !== 'ARRIVED') return false;
  if (p.currentWarehouseId === null) return p.status === 'ARRIVED' && DOOR_OR_LOCKER.includes(p.deliveryMethod);
  return atPickupPoint || p.currentWarehouseId === p.deliveryWarehouseId;
}

export interface CargoPlace {
  status: CargoStatus;
  originWarehouseId: number | null;
  currentWarehouseId: number | null;
  deliveryWarehouseId: number | null;
}

export interface CargoPlaceAfter extends CargoPlace {
  atPickupPoint: boolean;
  atFinalPoint: boolean;
}

/** Cargo: RECEIVED needs a warehouse; it is at its final point when received at its delivery warehouse or a pickup point. */
export function cargoPlaceAfter(c: CargoPlace, change: PlaceChange<CargoStatus>): CargoPlaceAfter {
  const next: CargoPlace = { ...c, status: change.to };
  const w = change.warehouse ?? null;
  let here: WarehouseFacts | null =
    c.currentWarehouseId !== null && change.current?.id === c.currentWarehouseId ? change.current : null;
  if (change.to === 'RECEIVED' && !w) throw refuse('RECEIVED needs the warehouse that received the cargo');
  if (CARGO_AWAY.includes(change.to)) {
    next.currentWarehouseId = null;
    here = null;
  } else if (w) {
    next.currentWarehouseId = w.id;
    here = w;
  }
  if (next.originWarehouseId === null && w && change.to === 'RECEIVED') next.originWarehouseId = w.id;
  const atPickupPoint = here?.isPickupPoint === true;
  return { ...next, atPickupPoint, atFinalPoint: cargoAtFinalPoint(next, atPickupPoint) };
}

export function cargoAtFinalPoint(
  c: Pick<CargoPlace, 'status' | 'currentWarehouseId' | 'deliveryWarehouseId'>,
  atPickupPoint: boolean,
): boolean {
  if (c.status !== 'RECEIVED' || c.currentWarehouseId === null) return false;
  return atPickupPoint || c.currentWarehouseId === c.deliveryWarehouseId;
}
