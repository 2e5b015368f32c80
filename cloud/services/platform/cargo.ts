/**
 * Cargo (bulk consignments: a tractor number, a cargo type, a logistics company): created
 * RECEIVED at a warehouse, then moved by warehouse staff through the cargo transitions, each
 * change in one transaction with its status record and denormalised columns.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { CargoTable } from '../../storage/platform-schema.ts';
import { DomainError } from '../../domain/errors.ts';
import { normalizeCurrency } from '../../domain/money.ts';
import type { CargoKind, CargoStatus } from '../../domain/platform/enums.ts';
import { CARGO_INITIAL, assertCargoMove } from '../../domain/platform/statuses.ts';
import { cargoPlaceAfter } from '../../domain/platform/placement.ts';
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
import { cargoStatusRecords, findCargo } from '../../storage/shipment-lookups.ts';
import { insertCargoRow, insertStatusRecord, setCurrentStatus } from '../../storage/shipment-writes.ts';

export type Cargo = Selectable<CargoTable>;

export interface CargoInput {
  /** the logistics company carrying it */
  companyId: number;
  /** the warehouse that received it (cargo starts RECEIVED) */
  warehouseId: number;
  trackCode?: string | null;
  description?: string | null;
  tractorNumber?: string | null;
  weight: number;
  /** minor units */
  price?: number;
  currency: string;
  clientId?: number | null;
  supplierId?: number | null;
  cargoTypeId?: number | null;
  deliveryWarehouseId?: number | null;
  receiptCityId?: number | null;
  deliveryCityId?: number | null;
  paymentOrderId?: number | null;
  userId?: number | null;
}

export interface CargoStatusChange {
  cargoId: number;
  to: CargoStatus;
  warehouseId?: number | null;
  destinationWarehouseId?: number | null;
  userId?: number | null;
}

export async function getCargo(db: Db, id: number): Promise<Cargo> {
  const row = await findCargo(db, id);
  if (!row) throw new DomainError('CARGO_NOT_FOUND', `no cargo ${id}`);
  return row;
}

export function createCargo(db: Db, input: CargoInput, now: Date): Promise<Cargo> {
  return inTransaction(db, async (trx) => {
    checkAmounts(input.weight, input.price ?? 0);
    const refs = await checkShipmentRefs(trx, {
      companyId: input.companyId,
      clientId: input.clientId,
      supplierId: input.supplierId,
      cargoTypeId: input.cargoTypeId,
      warehouseIds: [input.deliveryWarehouseId],
      cityIds: [input.receiptCityId, input.deliveryCityId],
      paymentOrderId: input.paymentOrderId,
    });
    await checkActor(trx, input.userId, input.companyId);
    const warehouse = await warehouseFacts(trx, input.warehouseId);
    const place = cargoPlaceAfter(
      {
        status: CARGO_INITIAL,
        originWarehouseId: null,
        currentWarehouseId: null,
        deliveryWarehouseId: input.deliveryWarehouseId ?? null,
      },
      { to: CARGO_INITIAL, warehouse, at: now },
    );
    const at = now.toISOString();
    const fields = {
      description: input.description ?? null,
      tractorNumber: input.tractorNumber ?? null,
      clientId: input.clientId ?? null,
      cargoTypeId: input.cargoTypeId ?? null,
      companyId: input.companyId,
    };
    let cargo: Cargo;
    try {
      cargo = await insertCargoRow(trx, {
        ...fields,
        trackCode: input.trackCode ?? null,
        weight: input.weight,
        price: input.price ?? 0,
        currency: normalizeCurrency(input.currency),
        cargoKind: refs.cargoKind as CargoKind | null,
        clientCompanyId: refs.clientCompanyId,
        clientCode: refs.clientCode,
        supplierId: input.supplierId ?? null,
        originWarehouseId: place.originWarehouseId,
        currentWarehouseId: place.currentWarehouseId,
        deliveryWarehouseId: place.deliveryWarehouseId,
        receiptCityId: input.receiptCityId ?? null,
        deliveryCityId: input.deliveryCityId ?? null,
        paymentOrderId: input.paymentOrderId ?? null,
        isPaid: refs.isPaid,
        currentStatusId: null,
        status: CARGO_INITIAL,
        atPickupPoint: place.atPickupPoint ? 1 : 0,
        atFinalPoint: place.atFinalPoint ? 1 : 0,
        searchText: await shipmentSearchText(trx, 'cargo', fields),
        createdAt: at,
        updatedAt: at,
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new DomainError('TRACK_CODE_ALREADY_EXISTS', `cargo track code ${input.trackCode} exists`);
      throw err;
    }
    const statusId = await insertStatusRecord(
      trx,
      'cargo',
      cargo,
      CARGO_INITIAL,
      { warehouseId: input.warehouseId, userId: input.userId },
      at,
    );
    await setCurrentStatus(trx, 'cargo', cargo.id, statusId);
    return { ...cargo, currentStatusId: statusId };
  });
}

/** A status change by warehouse staff (or the operator), enforcing the cargo transitions. */
export function changeCargoStatus(db: Db, change: CargoStatusChange, now: Date): Promise<Cargo> {
  return inTransaction(db, async (trx) => {
    const cargo = await getCargo(trx, change.cargoId);
    assertCargoMove(cargo.status, change.to);
    await checkActor(trx, change.userId, cargo.companyId);
    const [warehouse, current] = await Promise.all([
      warehouseFacts(trx, change.warehouseId),
      warehouseFacts(trx, cargo.currentWarehouseId),
    ]);
    if (change.destinationWarehouseId != null) await warehouseFacts(trx, change.destinationWarehouseId);
    const place = cargoPlaceAfter(cargo, { to: change.to, warehouse, current, at: now });
    const at = now.toISOString();
    const statusId = await insertStatusRecord(trx, 'cargo', { ...cargo, ...place }, change.to, change, at);
    const changes = {
      status: change.to,
      currentStatusId: statusId,
      originWarehouseId: place.originWarehouseId,
      currentWarehouseId: place.currentWarehouseId,
      atPickupPoint: place.atPickupPoint ? 1 : 0,
      atFinalPoint: place.atFinalPoint ? 1 : 0,
      updatedAt: at,
    };
    await updateFromStatus(trx, 'cargo', cargo.id, cargo.status, changes);
    return { ...cargo, ...changes };
  });
}

export function cargoHistory(db: Db, cargoId: number) {
  return cargoStatusRecords(db, cargoId);
}
