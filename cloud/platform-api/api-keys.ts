/** API-key management of a company's administrator (/api/v1/logistic-company/api-key). */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformUser } from '../http/platform-auth.ts';
import { guardsOf } from '../http/app-guards.ts';
import { createPlatformApiKey, deletePlatformApiKey, listPlatformApiKeys } from '../services/platform/api-keys.ts';
import { pageOf, platformRoute } from './route.ts';
import { ApiKeyCreateBody, IntIdParams, SmallPageQuery } from './schemas.ts';
import { ApiKey, ApiKeyPage, Message } from './responses.ts';

export function apiKeysRouter(deps: AppDeps): Router {
  const r = Router();
  const { db, clock } = deps;
  const { credentials } = guardsOf(deps);
  r.post(
    '/create',
    platformRoute({ body: ApiKeyCreateBody, response: ApiKey }, ({ body, req }) =>
      createPlatformApiKey(db, platformUser(req).companyId, body.title, clock.now()),
    ),
  );
  r.get(
    '/list',
    platformRoute({ query: SmallPageQuery, response: ApiKeyPage }, ({ query, req }) =>
      listPlatformApiKeys(db, platformUser(req).companyId, pageOf(query)),
    ),
  );
  r.delete(
    '/:id',
    platformRoute({ params: IntIdParams, response: Message }, async ({ params, req }) => {
      await deps.uow.run(async (tx) => {
        await deletePlatformApiKey(tx.db, platformUser(req).companyId, params.id);
        // Every other cloud process forgets it too, after the commit.
        tx.after.credentialsRevoked();
      });
      // Deleting is revoking: the key is refused from the next request on, not when its cache entry ages out.
      credentials.revokeAll();
      return { message: 'api key deleted' };
    }),
  );
  return r;
}
