/** Countries, cities and districts as the operator manages them. */
import type { Db } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { DomainError } from '../../domain/errors.ts';

type Table = 'country' | 'city' | 'district';

export async function createCountry(db: Db, title: string, isActive = true, now: Date) {
  const at = now.toISOString();
  const row = { id: newId(), title, isActive: isActive ? 1 : 0, createdAt: at, updatedAt: at };
  await db.insertInto('country').values(row).execute();
  return row;
}

export async function createCity(db: Db, countryId: string, title: string, isActive = true, now: Date) {
  await mustExist(db, 'country', countryId);
  const at = now.toISOString();
  const row = { id: newId(), title, countryId, isActive: isActive ? 1 : 0, createdAt: at, updatedAt: at };
  await db.insertInto('city').values(row).execute();
  return row;
}

export async function createDistrict(db: Db, cityId: string, title: string, isActive = true, now: Date) {
  await mustExist(db, 'city', cityId);
  const at = now.toISOString();
  const row = { id: newId(), title, cityId, isActive: isActive ? 1 : 0, createdAt: at, updatedAt: at };
  await db.insertInto('district').values(row).execute();
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
  const res = await db.updateTable(table).set(set).where('id', '=', id).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new DomainError('NOT_FOUND', `no ${table} ${id}`);
  return db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Every country, active or not (the operator sees what the Locker API hides). */
export function listCountries(db: Db) {
  return db.selectFrom('country').selectAll().orderBy('title').orderBy('id').execute();
}

export async function listCities(db: Db, countryId?: string) {
  let q = db.selectFrom('city').selectAll();
  if (countryId) {
    await mustExist(db, 'country', countryId);
    q = q.where('countryId', '=', countryId);
  }
  return q.orderBy('title').orderBy('id').execute();
}

export async function listDistricts(db: Db, cityId?: string) {
  let q = db.selectFrom('district').selectAll();
  if (cityId) {
    await mustExist(db, 'city', cityId);
    q = q.where('cityId', '=', cityId);
  }
  return q.orderBy('title').orderBy('id').execute();
}

export async function mustExist(db: Db, table: Table, id: string) {
  const row = await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst();
  if (!row) throw new DomainError('NOT_FOUND', `no ${table} ${id}`);
}
