/**
 * Parcels and cargo written: the item, its status records, and the conditional update of a
 * status change (applied only if the status is still the one read, so of two racing changes
 * one wins).
 */
import type { Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { CargoStatus, ParcelStatus } from '../domain/platform/enums.ts';
import type { PlatformDatabase } from './platform-schema.ts';

export type ShipmentKind = 'parcel' | 'cargo';

export interface StatusWhere {
  warehouseId?: number | null;
  destinationWarehouseId?: number | null;
  userId?: number | null;
}

type Placed = {
  id: number;
  originWarehouseId: number | null;
  deliveryWarehouseId: number | null;
  receiptCityId: number | null;
  deliveryCityId: number | null;
};

/** A status record: where it happened, and the item's origin and destination at that time. */
export async function insertStatusRecord(
  trx: Db,
  kind: ShipmentKind,
  item: Placed,
  status: ParcelStatus | CargoStatus,
  where: StatusWhere,
  at: string,
): Promise<number> {
  const record = {
    warehouseId: where.warehouseId ?? null,
    originWarehouseId: item.originWarehouseId,
    destinationWarehouseId: where.destinationWarehouseId ?? item.deliveryWarehouseId,
    originCityId: item.receiptCityId,
    destinationCityId: item.deliveryCityId,
    userId: where.userId ?? null,
    createdAt: at,
    updatedAt: at,
  };
  const row =
    kind === 'parcel'
      ? await trx
          .insertInto('parcel_status')
          .values({ ...record, parcelId: item.id, status: status as ParcelStatus })
          .returning('id')
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('cargo_status')
          .values({ ...record, cargoId: item.id, status: status as CargoStatus })
          .returning('id')
          .executeTakeFirstOrThrow();
  return row.id;
}

/** Applies the changes only if the item's status is still `from`; false when it is not. */
export async function updateIfStatusIs(
  trx: Db,
  kind: ShipmentKind,
  id: number,
  from: string,
  changes: Record<string, unknown>,
): Promise<boolean> {
  const res = await trx
    .updateTable(kind)
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', from as never)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function setCurrentStatus(trx: Db, kind: ShipmentKind, id: number, statusId: number): Promise<void> {
  if (kind === 'parcel')
    await trx.updateTable('parcel').set({ currentStatusId: statusId }).where('id', '=', id).execute();
  else await trx.updateTable('cargo').set({ currentStatusId: statusId }).where('id', '=', id).execute();
}

export function insertParcelRow(trx: Db, parcel: Insertable<PlatformDatabase['parcel']>) {
  return trx.insertInto('parcel').values(parcel).returningAll().executeTakeFirstOrThrow();
}

export function insertCargoRow(trx: Db, cargo: Insertable<PlatformDatabase['cargo']>) {
  return trx.insertInto('cargo').values(cargo).returningAll().executeTakeFirstOrThrow();
}

/** Points the parcel at a locker and its order; the changed parcel, or undefined when there is none. */
export function linkParcelToLockerOrder(
  db: Db,
  parcelId: number,
  link: { postomatId: string; postomatOrderId: string | null },
  at: string,
) {
  return db
    .updateTable('parcel')
    .set({
      postomatId: link.postomatId,
      postomatOrderId: link.postomatOrderId,
      deliveryMethod: 'POSTOMAT',
      updatedAt: at,
    })
    .where('id', '=', parcelId)
    .returningAll()
    .executeTakeFirst();
}

/** A redirected parcel's new delivery. */
export async function setParcelDelivery(
  trx: Db,
  parcelId: number,
  changes: Updateable<PlatformDatabase['parcel']>,
): Promise<void> {
  await trx.updateTable('parcel').set(changes).where('id', '=', parcelId).execute();
}
