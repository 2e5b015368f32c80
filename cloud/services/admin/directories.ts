/** Countries, cities and districts as the operator manages them. */
import type { Db } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import {
  allCities,
  allCountries,
  allDistricts,
  directoryIdOf,
  directoryRow,
  insertCity,
  insertCountry,
  insertDistrict,
  updateDirectoryRow,
  type DirectoryTable,
} from '../../storage/geo-queries.ts';
import { DomainError } from '../../domain/errors.ts';

type Table = DirectoryTable;

export async function createCountry(db: Db, title: string, isActive = true, now: Date) {
  const at = now.toISOString();
  const row = { id: newId(), title, isActive: isActive ? 1 : 0, createdAt: at, updatedAt: at };
  await insertCountry(db, row);
  return row;
}

export async function createCity(db: Db, countryId: string, title: string, isActive = true, now: Date) {
  await mustExist(db, 'country', countryId);
  const at = now.toISOString();
  const row = { id: newId(), title, countryId, isActive: isActive ? 1 : 0, createdAt: at, updatedAt: at };
  await insertCity(db, row);
  return row;
}

export async function createDistrict(db: Db, cityId: string, title: string, isActive = true, now: Date) {
  await mustExist(db, 'city', cityId);
  const at = now.toISOString();
  const row = { id: newId(), title, cityId, isActive: isActive ? 1 : 0, createdAt: at, updatedAt: at };
  await insertDistrict(db, row);
  return row;
}

export async function updateDirectoryEntry(
  db: Db,
  table: Table,
  id: string,
  changes: { title?: string; isActive?: boolean },
  now: Date,
) {
  const set = {
    ...(changes.title === undefined ? {} : { title: changes.title }),
    ...(changes.isActive === undefined ? {} : { isActive: changes.isActive ? 1 : 0 }),
    updatedAt: now.toISOString(),
  };
  if (!(await updateDirectoryRow(db, table, id, set))) throw new DomainError('NOT_FOUND', `no ${table} ${id}`);
  return directoryRow(db, table, id);
}

/** Every country, active or not (the operator sees what the Locker API hides). */
export function listCountries(db: Db) {
  return allCountries(db);
}

export async function listCities(db: Db, countryId?: string) {
  if (countryId) await mustExist(db, 'country', countryId);
  return allCities(db, countryId);
}

export async function listDistricts(db: Db, cityId?: string) {
  if (cityId) await mustExist(db, 'city', cityId);
  return allDistricts(db, cityId);
}

export async function mustExist(db: Db, table: Table, id: string) {
  const row = await directoryIdOf(db, table, id);
  if (!row) throw new DomainError('NOT_FOUND', `no ${table} ${id}`);
}
