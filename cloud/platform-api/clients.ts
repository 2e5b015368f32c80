/** GET /api/v1/integrations/client/{id} and /client/search-by-code. */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformCompany } from '../http/platform-auth.ts';
import { clientReadScope, clientSearchScope, parseCodeSearch } from '../domain/platform/client-search.ts';
import {
  clientRelations,
  findClientIn,
  scopeCompanyIds,
  searchClientsByCode,
} from '../storage/platform-client-queries.ts';
import { platformRoute } from './route.ts';
import { ClientSearchQuery, RecordIdParams } from './read-schemas.ts';
import { presentClient } from './present-records.ts';
import { Client } from './responses.ts';
import { z } from 'zod';

export function clientsRoutes(r: Router, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/client/search-by-code',
    platformRoute({ query: ClientSearchQuery, response: z.array(Client).max(20) }, async ({ query, req }) => {
      const caller = platformCompany(req);
      const companyIds = await scopeCompanyIds(db, caller.companyId, clientSearchScope(caller.companyType));
      const clients = await searchClientsByCode(db, companyIds, parseCodeSearch(query.search));
      // cargoTypes only trims the code names shown: it never changes which clients are found.
      const rel = await clientRelations(db, clients, query.cargoTypes);
      return clients.map((c) => presentClient(c, rel, query.cargoTypes !== undefined));
    }),
  );

  r.get(
    '/client/:id',
    platformRoute({ params: RecordIdParams, response: Client.nullable() }, async ({ params, req }) => {
      const caller = platformCompany(req);
      const client = await findClientIn(
        db,
        await scopeCompanyIds(db, caller.companyId, clientReadScope(caller.companyType)),
        params.id,
      );
      if (!client) return null;
      return presentClient(client, await clientRelations(db, [client]));
    }),
  );
}
