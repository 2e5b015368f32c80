/** Locker API: countries, cities, districts (active records only in lists). */
import type { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import type { Db } from '../storage/database.ts';
import { route } from '../http/route.ts';
import { pageWindow } from '../http/query.ts';
import { CityListQuery, CityReadQuery, CountryQuery, DistrictListQuery, IdParams } from './schemas.ts';
import { presentCity, presentCountry, presentDistrict } from './present.ts';

/** Adds these routes to `r` itself: a nested Router per resource cost a layer walk on every request. */
export function directoriesRoutes(r: Routes, deps: AppDeps): void {
  const { db } = deps;

  r.get('/country', route({ query: CountryQuery }, async ({ query }) => {
    const countries = await db.selectFrom('country').selectAll().where('isActive', '=', 1).orderBy('title').orderBy('id').execute();
    const cities = query.withCities && countries.length
      ? await db.selectFrom('city').selectAll().where('isActive', '=', 1).where('countryId', 'in', countries.map((c) => c.id)).orderBy('title').orderBy('id').execute()
      : [];
    return {
      total: countries.length,
      data: countries.map((c) => ({
        ...presentCountry(c),
        ...(query.withCities ? { cities: cities.filter((x) => x.countryId === c.id).map(presentCity) } : {}),
      })),
    };
  }));

  r.get('/city', route({ query: CityListQuery }, ({ query }) => cityList(db, query)));

  r.get('/city/:id', route({ params: IdParams, query: CityReadQuery }, ({ params, query }) => cityView(db, params.id, query)));

  r.get('/district/list', route({ query: DistrictListQuery }, async ({ query }) => {
    let base = db.selectFrom('district').where('isActive', '=', 1);
    if (query.cityId) base = base.where('cityId', '=', query.cityId);
    const win = pageWindow(query);
    let q = base.selectAll().orderBy('title').orderBy('id');
    if (win) q = q.limit(win.limit).offset(win.offset);
    const [rows, count] = await Promise.all([q.execute(), base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()]);
    return { total: Number(count.n), data: rows.map(presentDistrict) };
  }));
}

/** Active cities by title; shared with the platform's locker access (/integrations/postomat/city). */
export async function cityList(db: Db, query: z.output<typeof CityListQuery>) {
  const base = db.selectFrom('city').where('isActive', '=', 1);
  const win = pageWindow(query);
  let q = base.selectAll().orderBy('title').orderBy('id');
  if (win) q = q.limit(win.limit).offset(win.offset);
  const [rows, count] = await Promise.all([q.execute(), base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()]);
  const countries = query.withCountry ? await countriesById(db, rows.map((c) => c.countryId)) : new Map();
  return {
    total: Number(count.n),
    data: rows.map((c) => ({ ...presentCity(c), ...(query.withCountry ? { country: countries.get(c.countryId) ?? null } : {}) })),
  };
}

/** One city (inactive ones too), or null when there is none. */
export async function cityView(db: Db, id: string, query: z.output<typeof CityReadQuery>) {
  const city = await db.selectFrom('city').selectAll().where('id', '=', id).executeTakeFirst();
  if (!city) return null;
  if (!query.withCountry) return presentCity(city);
  const countries = await countriesById(db, [city.countryId]);
  return { ...presentCity(city), country: countries.get(city.countryId) ?? null };
}

async function countriesById(db: Db, ids: string[]) {
  const unique = [...new Set(ids)];
  const rows = unique.length ? await db.selectFrom('country').selectAll().where('id', 'in', unique).execute() : [];
  return new Map(rows.map((c) => [c.id, presentCountry(c)]));
}
