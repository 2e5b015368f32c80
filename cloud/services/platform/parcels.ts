/**
 * Platform parcels: creation (AWAITING, with its first status record) and status changes by
 * warehouse staff, each in one transaction with its status record and denormalised columns.
 * The update is conditional on the status read, so two racing changes cannot both apply.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { ParcelTable } from '../../storage/platform-schema.ts';
import { DomainError } from '../../domain/errors.ts';
import { normalizeCurrency } from '../../domain/money.ts';
import type { DeliveryMethod, ParcelStatus } from '../../domain/platform/enums.ts';
import { PARCEL_INITIAL, assertParcelMove, canRedirect } from '../../domain/platform/statuses.ts';
import { parcelAtFinalPoint, parcelPlaceAfter } from '../../domain/platform/placement.ts';
import { newTrackCode } from '../../domain/platform/track-codes.ts';
import type { RandomInt } from '../../domain/codes.ts';
import { isUniqueViolation } from '../../storage/sql-errors.ts';
import {
  checkActor,
  checkAmounts,
  checkShipmentRefs,
  shipmentSearchText,
  updateFromStatus,
  warehouseFacts,
} from './shipments.ts';
import { inTransaction } from './tx.ts';
import { findParcel, findParcelByTrackCode, parcelStatusRecords } from '../../storage/shipment-lookups.ts';
import { findActivePickupPointId, findCompanyId, findPostomatId } from '../../storage/shipment-references.ts';
import {
  insertParcelRow,
  insertStatusRecord,
  linkParcelToLockerOrder,
  setCurrentStatus,
  setParcelDelivery,
} from '../../storage/shipment-writes.ts';
import { activePostomatId } from '../../storage/postomat-queries.ts';

export type Parcel = Selectable<ParcelTable>;

export interface ParcelInput {
  /** the owning logistics company */
  companyId: number;
  /** unique; drawn when omitted */
  trackCode?: string;
  description?: string | null;
  weight: number;
  /** minor units */
  price?: number;
  currency: string;
  deliveryMethod?: DeliveryMethod | null;
  postomatId?: string | null;
  postomatOrderId?: string | null;
  clientId?: number | null;
  supplierId?: number | null;
  /** the marketplace that created it */
  partnerCompanyId?: number | null;
  cargoTypeId?: number | null;
  originWarehouseId?: number | null;
  deliveryWarehouseId?: number | null;
  receiptCityId?: number | null;
  deliveryCityId?: number | null;
  paymentOrderId?: number | null;
  /** who registered it, when a person did */
  userId?: number | null;
}

export interface ParcelStatusChange {
  parcelId: number;
  to: ParcelStatus;
  /** the warehouse where it happens (required for RECEIVED; see domain/platform/placement.ts) */
  warehouseId?: number | null;
  /** SENT: the next warehouse; REDIRECT_TO_PVZ: the new pickup point */
  destinationWarehouseId?: number | null;
  userId?: number | null;
}

export async function getParcel(db: Db, id: number): Promise<Parcel> {
  const row = await findParcel(db, id);
  if (!row) throw new DomainError('PARCEL_NOT_FOUND', `no parcel ${id}`);
  return row;
}

export { findParcelByTrackCode } from '../../storage/shipment-lookups.ts';

const MAX_DRAWS = 5;

export async function createParcel(db: Db, input: ParcelInput, now: Date, randomInt?: RandomInt): Promise<Parcel> {
  for (let draw = 1; ; draw++) {
    try {
      return await inTransaction(db, (trx) => insertParcel(trx, input, now, randomInt));
    } catch (err) {
      // A drawn track code clashed with one created meanwhile: draw again. (Inside the caller's
      // transaction the failed statement has spoilt it on PostgreSQL, so only retry our own.)
      if (isUniqueViolation(err) && input.trackCode === undefined && !db.isTransaction && draw < MAX_DRAWS) continue;
      if (isUniqueViolation(err) && input.trackCode !== undefined)
        throw new DomainError('TRACK_CODE_ALREADY_EXISTS', `parcel track code ${input.trackCode} exists`);
      throw err;
    }
  }
}

async function insertParcel(trx: Db, input: ParcelInput, now: Date, randomInt?: RandomInt): Promise<Parcel> {
  const trackCode = input.trackCode ?? newTrackCode(randomInt);
  if (input.trackCode !== undefined && (await findParcelByTrackCode(trx, trackCode)))
    throw new DomainError('TRACK_CODE_ALREADY_EXISTS', `parcel track code ${input.trackCode} exists`);
  checkAmounts(input.weight, input.price ?? 0);
  const refs = await checkShipmentRefs(trx, {
    companyId: input.companyId,
    clientId: input.clientId,
    supplierId: input.supplierId,
    cargoTypeId: input.cargoTypeId,
    warehouseIds: [input.originWarehouseId, input.deliveryWarehouseId],
    cityIds: [input.receiptCityId, input.deliveryCityId],
    paymentOrderId: input.paymentOrderId,
  });
  if (input.partnerCompanyId != null) {
    const partner = await findCompanyId(trx, input.partnerCompanyId);
    if (!partner) throw new DomainError('COMPANY_NOT_FOUND', `no platform company ${input.partnerCompanyId}`);
  }
  if (input.postomatId != null) {
    const postomat = await findPostomatId(trx, input.postomatId);
    if (!postomat) throw new DomainError('POSTOMAT_NOT_FOUND');
  }
  await checkActor(trx, input.userId, input.companyId);
  const at = now.toISOString();
  const fields = {
    trackCode,
    description: input.description ?? null,
    clientId: input.clientId ?? null,
    cargoTypeId: input.cargoTypeId ?? null,
    companyId: input.companyId,
  };
  const parcel = await insertParcelRow(trx, {
    ...fields,
    weight: input.weight,
    price: input.price ?? 0,
    currency: normalizeCurrency(input.currency),
    deliveryMethod: input.deliveryMethod ?? null,
    postomatId: input.postomatId ?? null,
    postomatOrderId: input.postomatOrderId ?? null,
    clientCompanyId: refs.clientCompanyId,
    clientCode: refs.clientCode,
    supplierId: input.supplierId ?? null,
    partnerCompanyId: input.partnerCompanyId ?? null,
    originWarehouseId: input.originWarehouseId ?? null,
    currentWarehouseId: null,
    deliveryWarehouseId: input.deliveryWarehouseId ?? null,
    receiptCityId: input.receiptCityId ?? null,
    deliveryCityId: input.deliveryCityId ?? null,
    paymentOrderId: input.paymentOrderId ?? null,
    isPaid: refs.isPaid,
    currentStatusId: null,
    status: PARCEL_INITIAL,
    atPickupPoint: 0,
    atFinalPoint: 0,
    redirectedAt: null,
    searchText: await shipmentSearchText(trx, 'parcel', fields),
    createdAt: at,
    updatedAt: at,
  });
  const statusId = await insertStatusRecord(trx, 'parcel', parcel, PARCEL_INITIAL, { userId: input.userId }, at);
  await setCurrentStatus(trx, 'parcel', parcel.id, statusId);
  return { ...parcel, currentStatusId: statusId };
}

/** A status change by warehouse staff (or the operator), enforcing the transitions of domain/platform/statuses.ts. */
export function changeParcelStatus(db: Db, change: ParcelStatusChange, now: Date): Promise<Parcel> {
  return inTransaction(db, async (trx) => {
    const parcel = await getParcel(trx, change.parcelId);
    assertParcelMove(parcel.status, change.to);
    await checkActor(trx, change.userId, parcel.companyId);
    const [warehouse, destination, current] = await Promise.all([
      warehouseFacts(trx, change.warehouseId),
      warehouseFacts(trx, change.destinationWarehouseId),
      warehouseFacts(trx, parcel.currentWarehouseId),
    ]);
    const place = parcelPlaceAfter(parcel, { to: change.to, warehouse, destination, current, at: now });
    const at = now.toISOString();
    const statusId = await insertStatusRecord(trx, 'parcel', { ...parcel, ...place }, change.to, change, at);
    const changes = {
      status: change.to,
      currentStatusId: statusId,
      deliveryMethod: place.deliveryMethod,
      originWarehouseId: place.originWarehouseId,
      currentWarehouseId: place.currentWarehouseId,
      deliveryWarehouseId: place.deliveryWarehouseId,
      redirectedAt: place.redirectedAt,
      atPickupPoint: place.atPickupPoint ? 1 : 0,
      atFinalPoint: place.atFinalPoint ? 1 : 0,
      updatedAt: at,
    };
    await updateFromStatus(trx, 'parcel', parcel.id, parcel.status, changes);
    return { ...parcel, ...changes };
  });
}

/** Links a parcel to its locker order (marketplace POSTOMAT delivery, or a redirect to another locker). */
export async function setParcelLockerOrder(
  db: Db,
  parcelId: number,
  link: { postomatId: string; postomatOrderId: string | null },
  now: Date,
): Promise<Parcel> {
  const row = await linkParcelToLockerOrder(db, parcelId, link, now.toISOString());
  if (!row) throw new DomainError('PARCEL_NOT_FOUND', `no parcel ${parcelId}`);
  return row;
}

export function parcelHistory(db: Db, parcelId: number) {
  return parcelStatusRecords(db, parcelId);
}

export type RedirectTarget = { warehouseId: number } | { postomatId: string };

/**
 * Points a parcel at a new pickup point or locker (the marketplace redirect). Its status stays;
 * it shows REDIRECTED until it reaches the new point. The new locker order, if any, is linked
 * afterwards with setParcelLockerOrder.
 */
export function redirectParcel(db: Db, parcelId: number, target: RedirectTarget, now: Date): Promise<Parcel> {
  return inTransaction(db, async (trx) => {
    const parcel = await getParcel(trx, parcelId);
    if (!canRedirect(parcel.status))
      throw new DomainError('NOT_ACCEPTABLE', `a parcel in ${parcel.status} cannot be redirected`);
    let delivery: Pick<Parcel, 'deliveryMethod' | 'deliveryWarehouseId' | 'postomatId' | 'postomatOrderId'>;
    if ('warehouseId' in target) {
      const point = await findActivePickupPointId(trx, target.warehouseId);
      if (!point) throw new DomainError('COMPANY_NOT_FOUND', `no active pickup point ${target.warehouseId}`);
      delivery = { deliveryMethod: 'PICKUP', deliveryWarehouseId: point.id, postomatId: null, postomatOrderId: null };
    } else {
      const postomat = await activePostomatId(trx, target.postomatId);
      if (!postomat) throw new DomainError('POSTOMAT_NOT_FOUND');
      delivery = {
        deliveryMethod: 'POSTOMAT',
        deliveryWarehouseId: null,
        postomatId: postomat.id,
        postomatOrderId: null,
      };
    }
    const atFinalPoint = parcelAtFinalPoint({ ...parcel, ...delivery }, parcel.atPickupPoint === 1) ? 1 : 0;
    const changes = { ...delivery, atFinalPoint, redirectedAt: now.toISOString(), updatedAt: now.toISOString() };
    await setParcelDelivery(trx, parcelId, changes);
    return { ...parcel, ...changes };
  });
}
