/** GET /api/v1/integrations/logistic-company/parcel/list: the caller's clients' parcels, newest first. */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformCompany } from '../http/platform-auth.ts';
import { parseListSearch } from '../domain/platform/list-search.ts';
import { parcelStatusSelection } from '../domain/platform/list-filters.ts';
import { pageOf, platformRoute } from './route.ts';
import { ParcelListQuery } from './read-schemas.ts';
import { parcelPage } from './shipment-pages.ts';
import { ParcelPage } from './responses.ts';

export function parcelsRoutes(r: Router, deps: AppDeps): void {
  r.get(
    '/logistic-company/parcel/list',
    platformRoute({ query: ParcelListQuery, response: ParcelPage }, ({ query, req }) =>
      parcelPage(
        deps,
        {
          companyId: platformCompany(req).companyId,
          search: parseListSearch(query.search),
          code: query.code,
          codes: query.codes,
          statuses: parcelStatusSelection(query.statuses, query.arrivedAtFinal, query.strictArrived),
          isPaid: query.isPayed,
        },
        pageOf(query),
      ),
    ),
  );
}
