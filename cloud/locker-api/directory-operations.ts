/**
 * The Locker API's directory reads (countries, cities, districts), shared by both API families
 * (platform-api/postomat.ts reads cities through them): one implementation, one shape.
 */
import type { z } from 'zod';
import type { Db } from '../storage/database.ts';
import { pageWindow } from '../http/query.ts';
import { ListAnswer } from '../http/stream-json.ts';
import { groupBy, mapBatches } from '../storage/batches.ts';
import {
  activeCities,
  activeCitiesOf,
  activeCountries,
  activeDistricts,
  cityById,
  countriesByIds,
} from '../storage/geo-queries.ts';
import type { CityListQuery, CityReadQuery, CountryQuery, DistrictListQuery } from './schemas.ts';
import { presentCity, presentCountry, presentDistrict } from './present.ts';

/** Active countries by title, each with its active cities when asked. */
export async function countryList(db: Db, query: z.output<typeof CountryQuery>): Promise<ListAnswer> {
  const { rows: countries, total } = await activeCountries(db);
  return new ListAnswer(
    { total },
    mapBatches(countries, async (rows) => {
      if (!query.withCities) return rows.map(presentCountry);
      const cities = await activeCitiesOf(
        db,
        rows.map((c) => c.id),
      );
      const byCountry = groupBy(cities, (c) => c.countryId);
      return rows.map((c) => ({ ...presentCountry(c), cities: (byCountry.get(c.id) ?? []).map(presentCity) }));
    }),
  );
}

/**
 * Active cities by title; shared with the platform's locker access (/integrations/postomat/city).
 * Without a page the spec returns them all: read and written in batches.
 */
export async function cityList(db: Db, query: z.output<typeof CityListQuery>): Promise<ListAnswer> {
  const { rows, total } = await activeCities(db, pageWindow(query));
  return new ListAnswer(
    { total },
    mapBatches(rows, async (part) => {
      if (!query.withCountry) return part.map(presentCity);
      const countries = await countriesById(
        db,
        part.map((c) => c.countryId),
      );
      return part.map((c) => ({ ...presentCity(c), country: countries.get(c.countryId) ?? null }));
    }),
  );
}

/** One city (inactive ones too), or null when there is none. */
export async function cityView(db: Db, id: string, query: z.output<typeof CityReadQuery>) {
  const city = await cityById(db, id);
  if (!city) return null;
  if (!query.withCountry) return presentCity(city);
  const countries = await countriesById(db, [city.countryId]);
  return { ...presentCity(city), country: countries.get(city.countryId) ?? null };
}

/** Active districts by title, of one city when named. */
export async function districtList(db: Db, query: z.output<typeof DistrictListQuery>): Promise<ListAnswer> {
  const { rows, total } = await activeDistricts(db, query.cityId, pageWindow(query));
  return new ListAnswer(
    { total },
    mapBatches(rows, (part) => part.map(presentDistrict)),
  );
}

async function countriesById(db: Db, ids: string[]) {
  const unique = [...new Set(ids)];
  const rows = unique.length ? await countriesByIds(db, unique) : [];
  return new Map(rows.map((c) => [c.id, presentCountry(c)]));
}
