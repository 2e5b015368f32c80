/** GET /api/v1/integrations/logistic-company/cargo/list: the caller's clients' cargo, newest first. */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformCompany } from '../http/platform-auth.ts';
import { parseListSearch } from '../domain/platform/list-search.ts';
import { cargoStatusSelection } from '../domain/platform/list-filters.ts';
import { pageOf, platformRoute } from './route.ts';
import { CargoListQuery } from './read-schemas.ts';
import { cargoPage } from './shipment-pages.ts';
import { CargoPage } from './responses.ts';

export function cargoRoutes(r: Router, deps: AppDeps): void {
  r.get(
    '/logistic-company/cargo/list',
    platformRoute({ query: CargoListQuery, response: CargoPage }, ({ query, req }) =>
      cargoPage(
        deps,
        {
          companyId: platformCompany(req).companyId,
          search: parseListSearch(query.search),
          code: query.code,
          codes: query.codes,
          statuses: cargoStatusSelection(query.statuses, query.arrivedAtFinal),
          isPaid: query.isPayed,
          cargoKinds: query.cargoTypes,
        },
        pageOf(query),
      ),
    ),
  );
}
