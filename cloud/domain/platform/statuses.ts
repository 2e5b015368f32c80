/**
 * Status machines of platform parcels and cargo. The spec lists the statuses and says
 * "Transitions: not shown"; these are the moves a logistics operator expects (docs/platform.md
 * draws them). Warehouse staff drive them through the services; nothing else changes a status.
 */
import { DomainError } from '../errors.ts';
import type { CargoStatus, ParcelStatus } from './enums.ts';

/**
 * Parcel life: registered (AWAITING) → received at a warehouse → packed (READYTOSHIP) → sent
 * between warehouses → ARRIVED at the destination → handed over (TRANSFERRED, or first to a
 * courier for the door) → COMPLETED once settled. A parcel may be received again at every
 * intermediate warehouse, recalled to the sender, redirected to a pickup point, or lost (and found).
 */
export const PARCEL_TRANSITIONS: Record<ParcelStatus, readonly ParcelStatus[]> = {
  AWAITING: ['RECEIVED', 'ARRIVED', 'RECALL', 'LOST'],
  RECEIVED: ['READYTOSHIP', 'ARRIVED', 'COURIER_RECEIVED', 'TRANSFERRED', 'REDIRECT_TO_PVZ', 'RECALL', 'LOST'],
  READYTOSHIP: ['SENT', 'RECEIVED', 'COURIER_RECEIVED', 'LOST'],
  SENT: ['RECEIVED', 'ARRIVED', 'LOST'],
  ARRIVED: ['TRANSFERRED', 'COURIER_RECEIVED', 'READYTOSHIP', 'REDIRECT_TO_PVZ', 'RECALL', 'LOST'],
  COURIER_RECEIVED: ['TRANSFERRED', 'ARRIVED', 'RECEIVED', 'LOST'],
  REDIRECT_TO_PVZ: ['READYTOSHIP', 'SENT', 'ARRIVED', 'RECEIVED', 'LOST'],
  RECALL: ['RECEIVED', 'READYTOSHIP', 'SENT', 'TRANSFERRED', 'LOST'],
  TRANSFERRED: ['COMPLETED'],
  COMPLETED: [],
  LOST: ['RECEIVED'],
};

/** Cargo life: received → packed → sent → handed over; lost (and found) from any open status. */
export const CARGO_TRANSITIONS: Record<CargoStatus, readonly CargoStatus[]> = {
  RECEIVED: ['READYTOSHIP', 'TRANSFERRED', 'LOST'],
  READYTOSHIP: ['SENT', 'RECEIVED', 'LOST'],
  SENT: ['RECEIVED', 'TRANSFERRED', 'LOST'],
  TRANSFERRED: [],
  LOST: ['RECEIVED'],
};

export const PARCEL_INITIAL: ParcelStatus = 'AWAITING';
export const CARGO_INITIAL: CargoStatus = 'RECEIVED';

export const canMoveParcel = (from: ParcelStatus, to: ParcelStatus) => PARCEL_TRANSITIONS[from].includes(to);
export const canMoveCargo = (from: CargoStatus, to: CargoStatus) => CARGO_TRANSITIONS[from].includes(to);

export function assertParcelMove(from: ParcelStatus, to: ParcelStatus): void {
  if (!canMoveParcel(from, to)) {
    const next = PARCEL_TRANSITIONS[from];
    throw new DomainError(
      'INVALID_TRANSITION',
      `a parcel in ${from} cannot become ${to}${next.length ? ` (it can become ${next.join(', ')})` : ' (it is final)'}`,
    );
  }
}

export function assertCargoMove(from: CargoStatus, to: CargoStatus): void {
  if (!canMoveCargo(from, to)) {
    const next = CARGO_TRANSITIONS[from];
    throw new DomainError(
      'INVALID_TRANSITION',
      `cargo in ${from} cannot become ${to}${next.length ? ` (it can become ${next.join(', ')})` : ' (it is final)'}`,
    );
  }
}

/** The spec: a redirect is refused (406) in these statuses. */
export const REDIRECT_REFUSED: readonly ParcelStatus[] = [
  'READYTOSHIP',
  'COURIER_RECEIVED',
  'SENT',
  'TRANSFERRED',
  'COMPLETED',
];
export const canRedirect = (status: ParcelStatus) => !REDIRECT_REFUSED.includes(status);
