/**
 * Reads of the directories (countries, cities, districts): pages of the active ones by title,
 * and single rows or a few by id for the nested objects of other answers.
 */
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from './database.ts';
import { KeysetBatches, type Window } from './batches.ts';
import type { CityTable, CountryTable, DistrictTable } from './schema.ts';

/** A filtered directory query (country, city or district: each has a title and an id). */
type Directory = SelectQueryBuilder<any, any, {}>;

/** A page of a directory: its rows by title in batches, and how many there are in all. */
export interface DirectoryPage<R> {
  rows: KeysetBatches<R>;
  total: number;
}

/** Its rows by title, then id, in keyset batches within the window. */
function byTitle<R extends { id: string; title: string }>(base: Directory, window?: Window): KeysetBatches<R> {
  return new KeysetBatches<R>(({ after, offset, limit }) => {
    let q = base.selectAll();
    if (after) q = q.where((eb) => eb(eb.refTuple('title', 'id'), '>', eb.tuple(after.title, after.id)));
    q = q.orderBy('title').orderBy('id').limit(limit);
    return (offset ? q.offset(offset) : q).execute() as Promise<R[]>;
  }, window);
}

async function countOf(base: Directory): Promise<number> {
  const row = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The first batch is read while the total is counted (KeysetBatches starts at once). */
async function pageOf<R extends { id: string; title: string }>(
  base: Directory,
  window?: Window,
): Promise<DirectoryPage<R>> {
  const rows = byTitle<R>(base, window);
  return { rows, total: await countOf(base) };
}

export function activeCountries(db: Db): Promise<DirectoryPage<CountryTable>> {
  return pageOf<CountryTable>(db.selectFrom('country').where('isActive', '=', 1));
}

export function activeCities(db: Db, window?: Window): Promise<DirectoryPage<CityTable>> {
  return pageOf<CityTable>(db.selectFrom('city').where('isActive', '=', 1), window);
}

export function activeDistricts(
  db: Db,
  cityId: string | undefined,
  window?: Window,
): Promise<DirectoryPage<DistrictTable>> {
  let base = db.selectFrom('district').where('isActive', '=', 1);
  if (cityId) base = base.where('cityId', '=', cityId);
  return pageOf<DistrictTable>(base, window);
}

/** The active cities of the countries named, by title. */
export function activeCitiesOf(db: Db, countryIds: string[]) {
  return db
    .selectFrom('city')
    .selectAll()
    .where('isActive', '=', 1)
    .where('countryId', 'in', countryIds)
    .orderBy('title')
    .orderBy('id')
    .execute();
}

/** One city, active or not. */
export function cityById(db: Db, id: string) {
  return db.selectFrom('city').selectAll().where('id', '=', id).executeTakeFirst();
}

export function citiesByIds(db: Db, ids: string[]) {
  return db.selectFrom('city').selectAll().where('id', 'in', ids).execute();
}

export function countriesByIds(db: Db, ids: string[]) {
  return db.selectFrom('country').selectAll().where('id', 'in', ids).execute();
}

export function districtsByIds(db: Db, ids: string[]) {
  return db.selectFrom('district').selectAll().where('id', 'in', ids).execute();
}

/** The directories as the operator manages them. */
export type DirectoryTable = 'country' | 'city' | 'district';

export async function insertCountry(db: Db, row: CountryTable): Promise<void> {
  await db.insertInto('country').values(row).execute();
}

export async function insertCity(db: Db, row: CityTable): Promise<void> {
  await db.insertInto('city').values(row).execute();
}

export async function insertDistrict(db: Db, row: DistrictTable): Promise<void> {
  await db.insertInto('district').values(row).execute();
}

/** Whether the entry was there to change. */
export async function updateDirectoryRow(
  db: Db,
  table: DirectoryTable,
  id: string,
  set: { title?: string; isActive?: number; updatedAt: string },
): Promise<boolean> {
  const res = await db.updateTable(table).set(set).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** An entry known to exist (read back after a change). */
export function directoryRow(db: Db, table: DirectoryTable, id: string) {
  return db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The entry's id if it exists, active or not. */
export function directoryIdOf(db: Db, table: DirectoryTable, id: string) {
  return db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst();
}

/** Every country, active or not, by title. */
export function allCountries(db: Db) {
  return db.selectFrom('country').selectAll().orderBy('title').orderBy('id').execute();
}

/** Every city, active or not, by title (of one country when given). */
export function allCities(db: Db, countryId?: string) {
  let q = db.selectFrom('city').selectAll();
  if (countryId) q = q.where('countryId', '=', countryId);
  return q.orderBy('title').orderBy('id').execute();
}

/** Every district, active or not, by title (of one city when given). */
export function allDistricts(db: Db, cityId?: string) {
  let q = db.selectFrom('district').selectAll();
  if (cityId) q = q.where('cityId', '=', cityId);
  return q.orderBy('title').orderBy('id').execute();
}

/** A district with the city it lies in. */
export function districtCity(db: Db, districtId: string) {
  return db.selectFrom('district').select(['id', 'cityId']).where('id', '=', districtId).executeTakeFirst();
}
