/** Locker API: country, city and district routes (the reads they call: directory-operations.ts). */
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { CityListQuery, CityReadQuery, CountryQuery, DistrictListQuery, IdParams } from './schemas.ts';
import { CityOrNull, CityPage, CountryPage, DistrictPage } from './responses.ts';
import { cityList, cityView, countryList, districtList } from './directory-operations.ts';

/** Adds these routes to `r` itself: a nested Router per resource cost a layer walk on every request. */
export function directoriesRoutes(r: Routes, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/country',
    route({ query: CountryQuery, response: CountryPage }, ({ query }) => countryList(db, query)),
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
    route({ query: DistrictListQuery, response: DistrictPage }, ({ query }) => districtList(db, query)),
  );
}
