/**
 * The platform's own countries and cities (integer ids; the Locker API keeps its own, cuid2):
 * the operator's writes and full lists, and the active ones a marketplace reads.
 */
import type { Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { PlatformDatabase } from './platform-schema.ts';

export function insertPlatformCountry(db: Db, country: Insertable<PlatformDatabase['platform_country']>) {
  return db.insertInto('platform_country').values(country).returningAll().executeTakeFirstOrThrow();
}

export function insertPlatformCity(db: Db, city: Insertable<PlatformDatabase['platform_city']>) {
  return db.insertInto('platform_city').values(city).returningAll().executeTakeFirstOrThrow();
}

/** The changed country, or undefined when there is none with this id. */
export function updatePlatformCountryRow(
  db: Db,
  id: number,
  changes: Updateable<PlatformDatabase['platform_country']>,
) {
  return db.updateTable('platform_country').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The changed city, or undefined when there is none with this id. */
export function updatePlatformCityRow(db: Db, id: number, changes: Updateable<PlatformDatabase['platform_city']>) {
  return db.updateTable('platform_city').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export function findPlatformCountry(db: Db, id: number) {
  return db.selectFrom('platform_country').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findPlatformCity(db: Db, id: number) {
  return db.selectFrom('platform_city').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every country and every city, active or not, each by id. */
export function allPlatformCountriesAndCities(db: Db) {
  return Promise.all([
    db.selectFrom('platform_country').selectAll().orderBy('id').execute(),
    db.selectFrom('platform_city').selectAll().orderBy('id').execute(),
  ]);
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

export function findActiveCountryId(db: Db, id: number) {
  return db
    .selectFrom('platform_country')
    .select('id')
    .where('id', '=', id)
    .where('isActive', '=', 1)
    .executeTakeFirst();
}
