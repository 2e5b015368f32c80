/** The Locker API family, mounted at /api/v1/integration/company (plus its public endpoints). */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { lockerAuth } from '../http/locker-auth.ts';
import { rateLimit } from '../http/rate-limit.ts';
import { bearerToken } from '../http/bearer.ts';
import { ordersRouter } from './orders.ts';
import { postomatsRouter } from './postomats.ts';
import { directoriesRouter } from './directories.ts';
import { publicRouter } from './public.ts';

export const LOCKER_API_BASE = '/api/v1/integration/company';

export function lockerApi(deps: AppDeps): Router {
  const root = Router();
  const limits = { ...deps.config.rateLimit, clock: deps.clock };

  const api = Router();
  // Limited per API key, before the key is looked up, so a flood of guesses cannot reach the database.
  api.use(rateLimit({ ...limits, keyOf: (req) => { const t = bearerToken(req); return t ? `key:${t}` : `ip:${req.ip}`; } }));
  api.use(lockerAuth(deps.db, deps.clock));
  api.use(ordersRouter(deps));
  api.use(postomatsRouter(deps));
  api.use(directoriesRouter(deps));
  root.use(LOCKER_API_BASE, api);

  // Public endpoints are limited per client address.
  root.use(['/api/v1/open-api', '/api/v1/public/postomat'], rateLimit({ ...limits, keyOf: (req) => `ip:${req.ip}` }));
  root.use(publicRouter(deps));
  return root;
}
