/** GET /api/v1/public/cargo-types (no authentication): active cargo types with their delivery types. */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { listCargoTypes } from '../services/platform/cargo-types.ts';
import { platformRoute } from './route.ts';
import { CargoTypesQuery } from './read-schemas.ts';
import { presentCargoType } from './present-records.ts';
import { CargoTypeWithDeliveryTypes } from './responses.ts';
import { z } from 'zod';

export function cargoTypesRouter(deps: AppDeps): Router {
  const r = Router();
  r.get(
    '/',
    platformRoute({ query: CargoTypesQuery, response: z.array(CargoTypeWithDeliveryTypes) }, async ({ query }) => {
      const types = await listCargoTypes(deps.db, { kinds: query.types, activeOnly: true });
      return types.map((t) => ({ ...presentCargoType(t), deliveryTypes: t.deliveryTypes }));
    }),
  );
  return r;
}
