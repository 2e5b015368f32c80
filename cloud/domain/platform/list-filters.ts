/**
 * The status rules of the parcel and cargo lists (the spec's "Status filter" and "Special
 * sets"), as data: a selection is a set of terms over the columns every item carries (status,
 * atPickupPoint, atFinalPoint, whether it has a payment order). Storage turns a selection into
 * SQL (cloud/storage/shipment-queries.ts); `selects` evaluates it on one item, which is what the
 * rules mean and what the unit tests check each special set against.
 */
import type { CargoStatus, ParcelStatus } from './enums.ts';

/** What the status rules look at on an item. */
export interface ItemFacts<S extends string = string> {
  status: S;
  atPickupPoint: boolean;
  atFinalPoint: boolean;
  hasPaymentOrder: boolean;
}

/** One conjunction: every field given must hold. */
export interface Term<S extends string = string> {
  statuses?: readonly S[];
  atPickupPoint?: boolean;
  atFinalPoint?: boolean;
  hasPaymentOrder?: boolean;
}

/** Items that match some `include` term and no `exclude` term. */
export interface StatusSelection<S extends string = string> {
  include: Term<S>[];
  exclude: Term<S>[];
}

export function termHolds<S extends string>(t: Term<S>, item: ItemFacts<S>): boolean {
  return (
    (t.statuses === undefined || t.statuses.includes(item.status)) &&
    (t.atPickupPoint === undefined || t.atPickupPoint === item.atPickupPoint) &&
    (t.atFinalPoint === undefined || t.atFinalPoint === item.atFinalPoint) &&
    (t.hasPaymentOrder === undefined || t.hasPaymentOrder === item.hasPaymentOrder)
  );
}

export function selects<S extends string>(sel: StatusSelection<S>, item: ItemFacts<S>): boolean {
  return sel.include.some((t) => termHolds(t, item)) && !sel.exclude.some((t) => termHolds(t, item));
}

/** Special sets are matched on the statuses as a set: any order, repeats ignored. */
function sameSet(given: readonly string[], wanted: readonly string[]): boolean {
  const g = new Set(given);
  return g.size === wanted.length && wanted.every((s) => g.has(s));
}

/** The statuses of the "in transit" special sets (rows 2 and 4 of the parcel table). */
export const PARCEL_ON_THE_WAY: readonly ParcelStatus[] = [
  'ARRIVED',
  'READYTOSHIP',
  'RECALL',
  'RECEIVED',
  'REDIRECT_TO_PVZ',
  'SENT',
];
export const CARGO_ON_THE_WAY: readonly CargoStatus[] = ['READYTOSHIP', 'RECEIVED', 'SENT'];

/**
 * The general parcel rule: RECEIVED selects parcels received at a warehouse that is not a
 * pickup point; ARRIVED selects ARRIVED parcels and those RECEIVED at a pickup point.
 */
function parcelStatusTerms(statuses: readonly ParcelStatus[]): Term<ParcelStatus>[] {
  const terms: Term<ParcelStatus>[] = [];
  const plain = statuses.filter((s) => s !== 'RECEIVED');
  if (plain.length) terms.push({ statuses: [...new Set(plain)] });
  if (statuses.includes('RECEIVED')) terms.push({ statuses: ['RECEIVED'], atPickupPoint: false });
  if (statuses.includes('ARRIVED')) terms.push({ statuses: ['RECEIVED'], atPickupPoint: true });
  return terms;
}

/**
 * Row 3, "ARRIVED parcels at the final point with a payment order created": ARRIVED read as the
 * status filter reads it (a parcel RECEIVED at a pickup point counts as ARRIVED).
 */
const STRICT_ARRIVED: Term<ParcelStatus>[] = parcelStatusTerms(['ARRIVED']).map((t) => ({
  ...t,
  atFinalPoint: true,
  hasPaymentOrder: true,
}));

/**
 * The parcel list's selection, or undefined without `statuses`. `arrivedAtFinal` and
 * `strictArrived` change it only in the four special sets of the spec; "none" in the spec's
 * table means the parameter is absent.
 */
export function parcelStatusSelection(
  statuses: readonly ParcelStatus[] | undefined,
  arrivedAtFinal?: boolean,
  strictArrived?: boolean,
): StatusSelection<ParcelStatus> | undefined {
  if (!statuses?.length) return undefined;
  const onTheWay = sameSet(statuses, PARCEL_ON_THE_WAY);
  if (sameSet(statuses, ['ARRIVED', 'RECEIVED']) && arrivedAtFinal === true && strictArrived === undefined) {
    return { include: [{ statuses: ['ARRIVED', 'RECEIVED'], atFinalPoint: true }], exclude: [] };
  }
  if (onTheWay && arrivedAtFinal === false && strictArrived === undefined) {
    return { include: [{ statuses: PARCEL_ON_THE_WAY }], exclude: [{ atFinalPoint: true }] };
  }
  if (sameSet(statuses, ['ARRIVED']) && arrivedAtFinal === true && strictArrived === true) {
    return { include: STRICT_ARRIVED, exclude: [] };
  }
  if (onTheWay && arrivedAtFinal === false && strictArrived === true) {
    return { include: [{ statuses: PARCEL_ON_THE_WAY }], exclude: STRICT_ARRIVED };
  }
  return { include: parcelStatusTerms(statuses), exclude: [] };
}

const CARGO_AT_FINAL: Term<CargoStatus> = { statuses: ['RECEIVED'], atFinalPoint: true };

/** The cargo list's selection: statuses as given (no pickup-point rule), and its two special sets. */
export function cargoStatusSelection(
  statuses: readonly CargoStatus[] | undefined,
  arrivedAtFinal?: boolean,
): StatusSelection<CargoStatus> | undefined {
  if (!statuses?.length) return undefined;
  if (sameSet(statuses, ['RECEIVED']) && arrivedAtFinal === true) return { include: [CARGO_AT_FINAL], exclude: [] };
  if (sameSet(statuses, CARGO_ON_THE_WAY) && arrivedAtFinal === false)
    return { include: [{ statuses: CARGO_ON_THE_WAY }], exclude: [CARGO_AT_FINAL] };
  return { include: [{ statuses: [...new Set(statuses)] }], exclude: [] };
}
