/** Warehouses of platform companies; marketplace pickup points are warehouses with isPickupPoint. */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  findWarehouse,
  insertWarehouse,
  listWarehouseRows,
  updateWarehouseRow,
} from '../../storage/warehouse-queries.ts';
import { getPlatformCompany } from './companies.ts';
import { resolvePlaceChange, resolvePlatformPlace } from './directories.ts';
import { queueBulkJob, withBulkJobs } from './bulk-rewrites.ts';
import { defined, flag, inTransaction } from './tx.ts';

export interface WarehouseInput {
  companyId: number;
  title: string;
  titleCN?: string | null;
  titleEN?: string | null;
  titleKY?: string | null;
  address?: string | null;
  lat?: number | null;
  lng?: number | null;
  schedule?: string | null;
  /** opening hours per day, kept as given and shown as `schedules` */
  schedules?: unknown[] | null;
  countryId?: number | null;
  cityId?: number | null;
  isPickupPoint?: boolean;
  isActive?: boolean;
}

function checkCoordinates(lat: number | null, lng: number | null) {
  if ((lat === null) !== (lng === null))
    throw new DomainError('NOT_ACCEPTABLE', 'lat and lng go together: give both or neither');
  if (lat !== null && (lat < -90 || lat > 90)) throw new DomainError('NOT_ACCEPTABLE', 'lat must be -90..90');
  if (lng !== null && (lng < -180 || lng > 180)) throw new DomainError('NOT_ACCEPTABLE', 'lng must be -180..180');
}

export async function getWarehouse(db: Db, id: number) {
  const row = await findWarehouse(db, id);
  if (!row) throw new DomainError('WAREHOUSE_NOT_FOUND', `no warehouse ${id}`);
  return row;
}

export function createWarehouse(db: Db, input: WarehouseInput, now: Date) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, input.companyId);
    checkCoordinates(input.lat ?? null, input.lng ?? null);
    const place = await resolvePlatformPlace(trx, input.countryId, input.cityId);
    const at = now.toISOString();
    return insertWarehouse(trx, {
      companyId: input.companyId,
      title: input.title,
      titleCN: input.titleCN ?? null,
      titleEN: input.titleEN ?? null,
      titleKY: input.titleKY ?? null,
      address: input.address ?? null,
      lat: input.lat ?? null,
      lng: input.lng ?? null,
      schedule: input.schedule ?? null,
      schedules: input.schedules ? JSON.stringify(input.schedules) : null,
      ...place,
      isPickupPoint: input.isPickupPoint ? 1 : 0,
      isActive: input.isActive === false ? 0 : 1,
      createdAt: at,
      updatedAt: at,
    });
  });
}

/** Changes a warehouse; when it stops or starts being a pickup point, the items inside are re-filed. */
export function updateWarehouse(db: Db, id: number, changes: Partial<Omit<WarehouseInput, 'companyId'>>, now: Date) {
  return withBulkJobs(db, async (trx) => {
    const before = await getWarehouse(trx, id);
    const { isPickupPoint, isActive, schedules, countryId, cityId, ...rest } = changes;
    const lat = rest.lat === undefined ? before.lat : rest.lat;
    const lng = rest.lng === undefined ? before.lng : rest.lng;
    checkCoordinates(lat, lng);
    const place = await resolvePlaceChange(trx, before, countryId, cityId);
    const row = await updateWarehouseRow(trx, id, {
      ...defined(rest),
      ...place,
      ...(schedules === undefined ? {} : { schedules: schedules ? JSON.stringify(schedules) : null }),
      ...defined({ isPickupPoint: flag(isPickupPoint), isActive: flag(isActive) }),
      updatedAt: now.toISOString(),
    });
    if (row.isPickupPoint !== before.isPickupPoint) await queueBulkJob(trx, 'ITEMS_AT_WAREHOUSE', id, now);
    return row;
  });
}

export function listWarehouses(db: Db, filter: { companyId?: number; pickupPoints?: boolean } = {}) {
  return listWarehouseRows(db, filter);
}
