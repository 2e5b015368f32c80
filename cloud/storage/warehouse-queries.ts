/**
 * Warehouses of platform companies, and the pickup points among them (active warehouses
 * flagged isPickupPoint) as a marketplace reads them.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { PlatformDatabase, WarehouseTable } from './platform-schema.ts';

export type PickupPoint = Selectable<WarehouseTable>;

export function findWarehouse(db: Db, id: number) {
  return db.selectFrom('warehouse').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertWarehouse(db: Db, warehouse: Insertable<PlatformDatabase['warehouse']>) {
  return db.insertInto('warehouse').values(warehouse).returningAll().executeTakeFirstOrThrow();
}

export function updateWarehouseRow(db: Db, id: number, changes: Updateable<PlatformDatabase['warehouse']>) {
  return db.updateTable('warehouse').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function listWarehouseRows(db: Db, filter: { companyId?: number; pickupPoints?: boolean }) {
  let q = db.selectFrom('warehouse').selectAll().orderBy('id');
  if (filter.companyId !== undefined) q = q.where('companyId', '=', filter.companyId);
  if (filter.pickupPoints !== undefined) q = q.where('isPickupPoint', '=', filter.pickupPoints ? 1 : 0);
  return q.execute();
}

function pickupPoints(db: Db, owners: number[]) {
  return db
    .selectFrom('warehouse')
    .where('isPickupPoint', '=', 1)
    .where('isActive', '=', 1)
    .where('companyId', 'in', owners);
}

export interface PickupPointWhere {
  owners: number[];
  ids?: number[];
  cityId?: number;
  countryId?: number;
}

function matchingPickupPoints(db: Db, f: PickupPointWhere) {
  let base = pickupPoints(db, f.owners);
  if (f.ids?.length) base = base.where('id', 'in', f.ids);
  if (f.cityId !== undefined) base = base.where('cityId', '=', f.cityId);
  if (f.countryId !== undefined) base = base.where('countryId', '=', f.countryId);
  return base;
}

/** Every matching pickup point that has coordinates, unordered. */
export function locatedPickupPoints(db: Db, f: PickupPointWhere): Promise<PickupPoint[]> {
  return matchingPickupPoints(db, f).selectAll().where('lat', 'is not', null).where('lng', 'is not', null).execute();
}

/** A page of matching pickup points by title, and how many match. */
export async function pageOfPickupPoints(
  db: Db,
  f: PickupPointWhere,
  window: { limit: number; offset: number },
): Promise<{ total: number; rows: PickupPoint[] }> {
  const base = matchingPickupPoints(db, f);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('title').orderBy('id').limit(window.limit).offset(window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.n), rows };
}

export function findPickupPoint(db: Db, owners: number[], id: number): Promise<PickupPoint | undefined> {
  return pickupPoints(db, owners).selectAll().where('id', '=', id).executeTakeFirst();
}
