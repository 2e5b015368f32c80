/** The platform's own countries and cities (integer ids; the Locker API keeps its own, cuid2). */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  allPlatformCountriesAndCities,
  findPlatformCity,
  findPlatformCountry,
  insertPlatformCity,
  insertPlatformCountry,
  updatePlatformCityRow,
  updatePlatformCountryRow,
} from '../../storage/platform-directory-queries.ts';
import { defined, flag } from './tx.ts';

export interface Titles {
  titleRU?: string | null;
  titleCN?: string | null;
  titleEN?: string | null;
  titleKY?: string | null;
}

const titlesOf = (t: Titles) => ({
  titleRU: t.titleRU ?? null,
  titleCN: t.titleCN ?? null,
  titleEN: t.titleEN ?? null,
  titleKY: t.titleKY ?? null,
});

export interface CountryInput extends Titles {
  title: string;
  isActive?: boolean;
}

export interface CityInput extends Titles {
  countryId: number;
  title: string;
  lat?: number | null;
  lng?: number | null;
  isActive?: boolean;
}

export async function createPlatformCountry(db: Db, input: CountryInput, now: Date) {
  const at = now.toISOString();
  return insertPlatformCountry(db, {
    title: input.title,
    ...titlesOf(input),
    isActive: input.isActive === false ? 0 : 1,
    createdAt: at,
    updatedAt: at,
  });
}

export async function createPlatformCity(db: Db, input: CityInput, now: Date) {
  await getPlatformCountry(db, input.countryId);
  const at = now.toISOString();
  return insertPlatformCity(db, {
    countryId: input.countryId,
    title: input.title,
    ...titlesOf(input),
    lat: input.lat ?? null,
    lng: input.lng ?? null,
    isActive: input.isActive === false ? 0 : 1,
    createdAt: at,
    updatedAt: at,
  });
}

export async function updatePlatformCountry(db: Db, id: number, changes: Partial<CountryInput>, now: Date) {
  const { isActive, ...rest } = changes;
  const row = await updatePlatformCountryRow(db, id, {
    ...defined(rest),
    ...defined({ isActive: flag(isActive) }),
    updatedAt: now.toISOString(),
  });
  if (!row) throw new DomainError('NOT_FOUND', `no platform country ${id}`);
  return row;
}

export async function updatePlatformCity(
  db: Db,
  id: number,
  changes: Partial<Omit<CityInput, 'countryId'>>,
  now: Date,
) {
  const { isActive, ...rest } = changes;
  const row = await updatePlatformCityRow(db, id, {
    ...defined(rest),
    ...defined({ isActive: flag(isActive) }),
    updatedAt: now.toISOString(),
  });
  if (!row) throw new DomainError('NOT_FOUND', `no platform city ${id}`);
  return row;
}

export async function getPlatformCountry(db: Db, id: number) {
  const row = await findPlatformCountry(db, id);
  if (!row) throw new DomainError('NOT_FOUND', `no platform country ${id}`);
  return row;
}

export async function getPlatformCity(db: Db, id: number) {
  const row = await findPlatformCity(db, id);
  if (!row) throw new DomainError('NOT_FOUND', `no platform city ${id}`);
  return row;
}

/** Every country with its cities, active or not: the operator's view. */
export async function listPlatformCountries(db: Db) {
  const [countries, cities] = await allPlatformCountriesAndCities(db);
  return countries.map((c) => ({ ...c, cities: cities.filter((x) => x.countryId === c.id) }));
}

/** A city and country given together must agree; a city alone implies its country. */
export async function resolvePlatformPlace(
  db: Db,
  countryId: number | null | undefined,
  cityId: number | null | undefined,
) {
  if (cityId !== null && cityId !== undefined) {
    const city = await getPlatformCity(db, cityId);
    if (countryId !== null && countryId !== undefined && countryId !== city.countryId) {
      throw new DomainError(
        'NOT_ACCEPTABLE',
        `city ${cityId} is in country ${city.countryId}, not in country ${countryId}`,
      );
    }
    return { countryId: city.countryId, cityId };
  }
  if (countryId !== null && countryId !== undefined) await getPlatformCountry(db, countryId);
  return { countryId: countryId ?? null, cityId: cityId ?? null };
}

/**
 * The place after an update: omitted fields keep their values; a city alone moves the country
 * with it; clearing the city alone keeps the country.
 */
export async function resolvePlaceChange(
  db: Db,
  before: { countryId: number | null; cityId: number | null },
  countryId: number | null | undefined,
  cityId: number | null | undefined,
): Promise<{ countryId?: number | null; cityId?: number | null }> {
  if (countryId === undefined && cityId === undefined) return {};
  return resolvePlatformPlace(
    db,
    countryId === undefined && cityId === null ? before.countryId : countryId,
    cityId === undefined ? before.cityId : cityId,
  );
}
