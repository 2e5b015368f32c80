/** Marketplace pickup points and cities (/api/v1/integrations/market-company/opp). */
import type { Request, Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { DomainError } from '../domain/errors.ts';
import { platformCompany } from '../http/platform-auth.ts';
import type { Db } from '../storage/database.ts';
import {
  findPickupPoint,
  findPlatformCity,
  listPickupPoints,
  listPlatformCities,
  pickupPointOwners,
  platformCitiesById,
  platformCountriesById,
} from '../services/platform/market-places.ts';
import { pageOf, platformRoute } from './route.ts';
import { IntIdParams } from './schemas.ts';
import { MarketCityListQuery, PickupPointListQuery, PlaceReadQuery } from './market-schemas.ts';
import { MarketCity, MarketCityPage, PickupPoint, PickupPointPage } from './responses.ts';
import { presentPickupPoint, presentPlatformCity, presentPlatformCountry } from './market-present.ts';

export function pickupPointRoutes(r: Router, deps: AppDeps): void {
  const { db } = deps;
  const owners = (req: Request) => pickupPointOwners(db, platformCompany(req).companyId);

  r.get(
    '/opp/list',
    platformRoute({ query: PickupPointListQuery, response: PickupPointPage }, async ({ query, req }) => {
      const near =
        query.latitude !== undefined && query.longitude !== undefined
          ? { lat: query.latitude, lng: query.longitude }
          : undefined;
      const { total, rows } = await listPickupPoints(db, {
        owners: await owners(req),
        ids: query.ids,
        cityId: query.cityId,
        countryId: query.countryId,
        window: pageOf(query),
        near,
      });
      return { total, data: await withPlaces(db, rows, presentPickupPoint, query) };
    }),
  );

  r.get(
    '/opp/city',
    platformRoute({ query: MarketCityListQuery, response: MarketCityPage }, async ({ query }) => {
      const { total, rows } = await listPlatformCities(db, pageOf(query));
      return { total, data: await withPlaces(db, rows, presentPlatformCity, { withCountry: query.withCountry }) };
    }),
  );

  // A missing city is null, as the Locker API's /city/{id} answers.
  r.get(
    '/opp/city/:id',
    platformRoute(
      { params: IntIdParams, query: PlaceReadQuery, response: MarketCity.nullable() },
      async ({ params, query }) => {
        const city = await findPlatformCity(db, params.id);
        return city ? (await withPlaces(db, [city], presentPlatformCity, { withCountry: query.withCountry }))[0] : null;
      },
    ),
  );

  r.get(
    '/opp/:id',
    platformRoute(
      { params: IntIdParams, query: PlaceReadQuery, response: PickupPoint },
      async ({ params, query, req }) => {
        const point = await findPickupPoint(db, await owners(req), params.id);
        if (!point) throw new DomainError('WAREHOUSE_NOT_FOUND');
        return (await withPlaces(db, [point], presentPickupPoint, query))[0];
      },
    ),
  );
}

type Placed = { countryId: number | null; cityId?: number | null; distance?: number };

/** Pickup points (with `city`, `country`, `distance`) or cities (with `country`), as asked. */
async function withPlaces<T extends Placed>(
  db: Db,
  rows: T[],
  present: (row: T) => Record<string, unknown>,
  flags: { withCity?: boolean; withCountry?: boolean },
) {
  const [cities, countries] = await Promise.all([
    flags.withCity
      ? platformCitiesById(
          db,
          rows.map((r) => r.cityId ?? null),
        )
      : undefined,
    flags.withCountry
      ? platformCountriesById(
          db,
          rows.map((r) => r.countryId),
        )
      : undefined,
  ]);
  return rows.map((row) => {
    const out = present(row);
    if (cities) {
      const city = row.cityId == null ? undefined : cities.get(row.cityId);
      out.city = city ? presentPlatformCity(city) : null;
    }
    if (countries) {
      const country = row.countryId === null ? undefined : countries.get(row.countryId);
      out.country = country ? presentPlatformCountry(country) : null;
    }
    if (row.distance !== undefined) out.distance = row.distance;
    return out;
  });
}
