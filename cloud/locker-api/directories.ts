/** Locker API: country, city and district routes (the reads they call: directory-operations.ts). */
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { pageWindow } from '../http/query.ts';
import { ListAnswer } from '../http/stream-json.ts';
import { groupBy, mapBatches } from '../storage/batches.ts';
import type { CountryTable, DistrictTable } from '../storage/schema.ts';
import { CityListQuery, CityReadQuery, CountryQuery, DistrictListQuery, IdParams } from './schemas.ts';
import { presentCity, presentCountry, presentDistrict } from './present.ts';
import { CityOrNull, CityPage, CountryPage, DistrictPage } from './responses.ts';

import { byTitle, cityList, cityView, countOf } from './directory-operations.ts';
/** Adds these routes to `r` itself: a nested Router per resource cost a layer walk on every request. */
export function directoriesRoutes(r: Routes, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/country',
    route({ query: CountryQuery, response: CountryPage }, async ({ query }) => {
      const base = db.selectFrom('country').where('isActive', '=', 1);
      const countries = byTitle<CountryTable>(base);
      const total = await countOf(base);
      return new ListAnswer(
        { total },
        mapBatches(countries, async (rows) => {
          if (!query.withCities) return rows.map(presentCountry);
          const cities = await db
            .selectFrom('city')
            .selectAll()
            .where('isActive', '=', 1)
            .where(
              'countryId',
              'in',
              rows.map((c) => c.id),
            )
            .orderBy('title')
            .orderBy('id')
            .execute();
          const byCountry = groupBy(cities, (c) => c.countryId);
          return rows.map((c) => ({ ...presentCountry(c), cities: (byCountry.get(c.id) ?? []).map(presentCity) }));
        }),
      );
    }),
  );

  r.get(
    '/city',
    route({ query: CityListQuery, response: CityPage }, ({ query }) => cityList(db, query)),
  );

  r.get(
    '/city/:id',
    route({ params: IdParams, query: CityReadQuery, response: CityOrNull }, ({ params, query }) =>
      cityView(db, params.id, query),
    ),
  );

  r.get(
    '/district/list',
    route({ query: DistrictListQuery, response: DistrictPage }, async ({ query }) => {
      let base = db.selectFrom('district').where('isActive', '=', 1);
      if (query.cityId) base = base.where('cityId', '=', query.cityId);
      const rows = byTitle<DistrictTable>(base, pageWindow(query));
      return new ListAnswer(
        { total: await countOf(base) },
        mapBatches(rows, (part) => part.map(presentDistrict)),
      );
    }),
  );
}
