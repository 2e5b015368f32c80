/**
 * The Platform API family: sign-in (/api/v1/auth), the administrator's API keys and webhooks
 * (/api/v1/logistic-company/*, user token) and the company integrations
 * (/api/v1/integrations/*, company API key). Routers of the integration groups are added to
 * `integrations` below.
 */
import crypto from 'node:crypto';
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { rateLimit } from '../http/rate-limit.ts';
import { apiKeyAuth, platformKeyOf, userAuth } from '../http/platform-auth.ts';
import { bearerToken } from '../http/bearer.ts';
import { TokenSigner } from '../services/platform/tokens.ts';
import { authRouter } from './auth.ts';
import { apiKeysRouter } from './api-keys.ts';
import { webhooksRouter } from './webhooks.ts';
import { postomatRouter } from './postomat.ts';
import { marketRouter } from './market.ts';
import { readRoutes } from './read-routes.ts';
import { cargoTypesRouter } from './cargo-types.ts';

export function platformApi(deps: AppDeps): Router {
  const root = Router();
  const signer = new TokenSigner(deps.config.jwtSecret ?? crypto.randomBytes(48).toString('base64url'), deps.clock);
  const limits = { ...deps.config.rateLimit, clock: deps.clock };

  // Sign-in is limited per client address (password guessing); the rest per credential, before it is checked.
  root.use('/api/v1/auth', rateLimit({ ...limits, keyOf: (req) => `ip:${req.ip}` }), authRouter(deps, signer));
  const perUser = rateLimit({ ...limits, keyOf: (req) => { const t = bearerToken(req); return t ? `user:${t}` : `ip:${req.ip}`; } });
  root.use('/api/v1/logistic-company/api-key', perUser, userAuth(deps.db, signer, { admin: true }), apiKeysRouter(deps));
  root.use('/api/v1/logistic-company/webhook', perUser, userAuth(deps.db, signer, { admin: true, companyTypes: ['LOGIST'] }), webhooksRouter(deps));

  const integrations = Router();
  integrations.use(rateLimit({ ...limits, keyOf: (req) => { const k = platformKeyOf(req); return k ? `key:${k}` : `ip:${req.ip}`; } }));
  integrations.use(apiKeyAuth(deps.db, deps.clock));
  integrations.use('/postomat', postomatRouter(deps));
  integrations.use('/market-company', marketRouter(deps));
  readRoutes(integrations, deps);
  root.use('/api/v1/integrations', integrations);
  root.use('/api/v1/public/cargo-types', rateLimit({ ...limits, keyOf: (req) => `ip:${req.ip}` }), cargoTypesRouter(deps));
  return root;
}
