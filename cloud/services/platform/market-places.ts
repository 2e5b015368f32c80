/**
 * What a marketplace reads about places: pickup points (warehouses flagged isPickupPoint) and
 * the platform's cities. A marketplace sees the pickup points of its own and of the companies
 * it hands parcels to; not those of other marketplaces.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { WarehouseTable } from '../../storage/platform-schema.ts';
import { nearest } from '../../domain/geo.ts';
import { partnerIdsOf } from './companies.ts';

export type PickupPoint = Selectable<WarehouseTable>;

export async function pickupPointOwners(db: Db, marketId: number): Promise<number[]> {
  return [marketId, ...(await partnerIdsOf(db, marketId))];
}

function pickupPoints(db: Db, owners: number[]) {
  return db
    .selectFrom('warehouse')
    .where('isPickupPoint', '=', 1)
    .where('isActive', '=', 1)
    .where('companyId', 'in', owners);
}

export interface PickupPointFilter {
  owners: number[];
  ids?: number[];
  cityId?: number;
  countryId?: number;
  window: { limit: number; offset: number };
  /** sort by distance from here; points without coordinates are left out */
  near?: { lat: number; lng: number };
}

/** Active pickup points by title, or by distance (each with `distance` in km). */
export async function listPickupPoints(
  db: Db,
  f: PickupPointFilter,
): Promise<{ total: number; rows: Array<PickupPoint & { distance?: number }> }> {
  let base = pickupPoints(db, f.owners);
  if (f.ids?.length) base = base.where('id', 'in', f.ids);
  if (f.cityId !== undefined) base = base.where('cityId', '=', f.cityId);
  if (f.countryId !== undefined) base = base.where('countryId', '=', f.countryId);
  if (f.near) {
    // A marketplace has tens or hundreds of points, not the lockers' ten thousand: sorted per request.
    const located = await base.selectAll().where('lat', 'is not', null).where('lng', 'is not', null).execute();
    const { total, page } = nearest(located, f.near.lat, f.near.lng, f.window);
    return { total, rows: page.map((p) => ({ ...p.item, distance: p.distance })) };
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('title').orderBy('id').limit(f.window.limit).offset(f.window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.n), rows };
}

export async function findPickupPoint(db: Db, owners: number[], id: number): Promise<PickupPoint | undefined> {
  return pickupPoints(db, owners).selectAll().where('id', '=', id).executeTakeFirst();
}

/** Active platform cities by title. */
export async function listPlatformCities(db: Db, window: { limit: number; offset: number }) {
  const base = db.selectFrom('platform_city').where('isActive', '=', 1);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('title').orderBy('id').limit(window.limit).offset(window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.n), rows };
}

export function findPlatformCity(db: Db, id: number) {
  return db.selectFrom('platform_city').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function platformCitiesById(db: Db, ids: Array<number | null>) {
  const unique = [...new Set(ids.filter((x): x is number => x !== null))];
  const rows = unique.length
    ? await db.selectFrom('platform_city').selectAll().where('id', 'in', unique).execute()
    : [];
  return new Map(rows.map((c) => [c.id, c]));
}

export async function platformCountriesById(db: Db, ids: Array<number | null>) {
  const unique = [...new Set(ids.filter((x): x is number => x !== null))];
  const rows = unique.length
    ? await db.selectFrom('platform_country').selectAll().where('id', 'in', unique).execute()
    : [];
  return new Map(rows.map((c) => [c.id, c]));
}

/** The receiver's or sender's place: an active city of an active country; a problem per field, else none. */
export async function placeProblems(db: Db, who: string, place: { country: number; city: number }): Promise<string[]> {
  const [country, city] = await Promise.all([
    db
      .selectFrom('platform_country')
      .select('id')
      .where('id', '=', place.country)
      .where('isActive', '=', 1)
      .executeTakeFirst(),
    findPlatformCity(db, place.city),
  ]);
  const problems: string[] = [];
  if (!country) problems.push(`${who}/country must be the id of an active country`);
  if (city?.isActive !== 1) problems.push(`${who}/city must be the id of an active city`);
  else if (country && city.countryId !== place.country)
    problems.push(`${who}/city must be a city of country ${place.country}`);
  return problems;
}
