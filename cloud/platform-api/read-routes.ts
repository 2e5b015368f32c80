/**
 * The integrations' read side, added to the `/api/v1/integrations` router itself (an extra
 * Router level is walked on every request): clients, courier and logistics companies,
 * suppliers, parcel and cargo lists.
 */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { clientsRoutes } from './clients.ts';
import { companiesRoutes } from './companies.ts';
import { suppliersRoutes } from './suppliers.ts';
import { parcelsRoutes } from './parcels.ts';
import { cargoRoutes } from './cargo.ts';

export function readRoutes(integrations: Router, deps: AppDeps): void {
  clientsRoutes(integrations, deps);
  companiesRoutes(integrations, deps);
  suppliersRoutes(integrations, deps);
  parcelsRoutes(integrations, deps);
  cargoRoutes(integrations, deps);
}
