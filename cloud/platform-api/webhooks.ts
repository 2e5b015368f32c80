/** Webhook management of a logistics company's administrator (/api/v1/logistic-company/webhook). */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformUser } from '../http/platform-auth.ts';
import { createWebhook, deleteWebhook, listWebhooks, updateWebhook } from '../services/platform/webhooks.ts';
import { pageOf, platformRoute } from './route.ts';
import { IntIdParams, SmallPageQuery } from './schemas.ts';
import { webhookBodies } from './webhook-schemas.ts';
import { Message, Webhook, WebhookPage } from './responses.ts';

export function webhooksRouter(deps: AppDeps): Router {
  const r = Router();
  const { db, clock } = deps;
  const bodies = webhookBodies(deps.config.outboundTargets);
  r.post(
    '/create',
    platformRoute({ body: bodies.create, response: Webhook }, ({ body, req }) =>
      createWebhook(db, platformUser(req).companyId, body, clock.now()),
    ),
  );
  r.get(
    '/list',
    platformRoute({ query: SmallPageQuery, response: WebhookPage }, ({ query, req }) =>
      listWebhooks(db, platformUser(req).companyId, pageOf(query)),
    ),
  );
  r.patch(
    '/:id',
    platformRoute({ params: IntIdParams, body: bodies.patch, response: Webhook }, ({ params, body, req }) =>
      updateWebhook(db, platformUser(req).companyId, params.id, body, clock.now()),
    ),
  );
  // The spec's text for this answer is "api key deleted", word for word.
  r.delete(
    '/:id',
    platformRoute({ params: IntIdParams, response: Message }, async ({ params, req }) => {
      await deleteWebhook(db, platformUser(req).companyId, params.id);
      return { message: 'api key deleted' };
    }),
  );
  return r;
}
