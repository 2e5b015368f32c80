/**
 * The Platform API family: sign-in (/api/v1/auth), the administrator's API keys and webhooks
 * (/api/v1/logistic-company/*, user token) and the company integrations
 * (/api/v1/integrations/*, company API key). Routers of the integration groups are added to
 * `integrations` below.
 */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { apiKeyAuth, platformCompany, platformUser, userAuth } from '../http/platform-auth.ts';
import { guardsOf } from '../http/app-guards.ts';
import { addressOf } from '../http/client-address.ts';
import { TokenSigner } from '../services/platform/tokens.ts';
import { authRouter } from './auth.ts';
import { apiKeysRouter } from './api-keys.ts';
import { webhooksRouter } from './webhooks.ts';
import { webhookSubscriptionsRouter } from './webhook-subscriptions.ts';
import { postomatRouter } from './postomat.ts';
import { marketRouter } from './market.ts';
import { readRoutes } from './read-routes.ts';
import { cargoTypesRouter } from './cargo-types.ts';

export function platformApi(deps: AppDeps): Router {
  const root = Router();
  const signer = new TokenSigner(deps.config.jwtSecret, deps.clock);
  const guards = guardsOf(deps);
  const { limits } = guards;

  // Sign-in requests are limited per client address; its failures per address and per account (auth.ts).
  root.use('/api/v1/auth', limits.requests('sign-in:address', addressOf), authRouter(deps, signer));
  // Failures are refused per address before a credential is checked; requests are counted per
  // user or key once known, so made-up credentials open no windows.
  const perUser = limits.requests('platform:user', (req) => String(platformUser(req).id));
  root.use(
    '/api/v1/logistic-company/api-key',
    userAuth(deps.db, signer, guards, { admin: true }),
    perUser,
    apiKeysRouter(deps),
  );
  root.use(
    '/api/v1/logistic-company/webhook',
    userAuth(deps.db, signer, guards, { admin: true, companyTypes: ['LOGIST'] }),
    perUser,
    webhooksRouter(deps),
  );
  // Subscriptions (issue 22): any company type's administrator, as parcel events reach marketplaces too.
  root.use(
    '/api/v1/logistic-company/webhook-subscriptions',
    userAuth(deps.db, signer, guards, { admin: true }),
    perUser,
    webhookSubscriptionsRouter(deps),
  );

  const integrations = Router();
  integrations.use(apiKeyAuth(deps.db, guards));
  integrations.use(limits.requests('platform:key', (req) => String(platformCompany(req).keyId)));
  integrations.use('/postomat', postomatRouter(deps));
  integrations.use('/market-company', marketRouter(deps));
  readRoutes(integrations, deps);
  root.use('/api/v1/integrations', integrations);
  root.use('/api/v1/public/cargo-types', limits.requests('platform-public:address', addressOf), cargoTypesRouter(deps));
  return root;
}
