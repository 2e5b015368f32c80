/** GET /api/v1/integrations/logistic-company/supplier/by-phone and /supplier/{id}/parcels. */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformCompany } from '../http/platform-auth.ts';
import { HttpError } from '../http/http-error.ts';
import { pageWindow } from '../http/query.ts';
import { parseListSearch } from '../domain/platform/list-search.ts';
import { parcelStatusSelection } from '../domain/platform/list-filters.ts';
import { findActiveSupplierByPhone, findSupplierOf } from '../storage/platform-client-queries.ts';
import { platformRoute } from './route.ts';
import { RecordIdParams, SupplierByPhoneQuery, SupplierParcelsQuery } from './read-schemas.ts';
import { presentSupplier } from './present-records.ts';
import { parcelPage } from './shipment-pages.ts';
import { ParcelPage, Supplier } from './responses.ts';

export function suppliersRoutes(r: Router, deps: AppDeps): void {
  const { db } = deps;

  // The phone matches exactly, as sent: a `+` must arrive encoded (%2B), or it reads as a space.
  r.get(
    '/logistic-company/supplier/by-phone',
    platformRoute({ query: SupplierByPhoneQuery, response: Supplier.nullable() }, async ({ query, req }) => {
      const supplier = await findActiveSupplierByPhone(db, platformCompany(req).companyId, query.phone);
      return supplier ? presentSupplier(supplier) : null;
    }),
  );

  r.get(
    '/logistic-company/supplier/:id/parcels',
    platformRoute(
      { params: RecordIdParams, query: SupplierParcelsQuery, response: ParcelPage },
      async ({ params, query, req }) => {
        const { companyId } = platformCompany(req);
        // The spec words this 404 as text, not as a code.
        if (!(await findSupplierOf(db, companyId, params.id))) throw new HttpError(404, 'Supplier not found');
        return parcelPage(
          deps,
          {
            companyId,
            supplierId: params.id,
            search: parseListSearch(query.search),
            statuses: parcelStatusSelection(query.statuses),
            isPaid: query.isPayed,
          },
          pageWindow(query),
        );
      },
    ),
  );
}
