/** The Locker API family, mounted at /api/v1/integration/company (plus its public endpoints). */
import { Router, type Express } from 'express';
import type { AppDeps } from '../deps.ts';
import { lockerAuth } from '../http/locker-auth.ts';
import { rateLimit } from '../http/rate-limit.ts';
import { bearerToken } from '../http/bearer.ts';
import { ordersRoutes } from './orders.ts';
import { postomatsRoutes } from './postomats.ts';
import { directoriesRoutes } from './directories.ts';
import { publicRoutes } from './public.ts';

export const LOCKER_API_BASE = '/api/v1/integration/company';

/** Mounts the family on the app itself: every extra Router level is walked on every request. */
export function mountLockerApi(app: Express, deps: AppDeps): void {
  const limits = { ...deps.config.rateLimit, clock: deps.clock };

  const api = Router();
  // Limited per API key, before the key is looked up, so a flood of guesses cannot reach the database.
  api.use(rateLimit({ ...limits, keyOf: (req) => { const t = bearerToken(req); return t ? `key:${t}` : `ip:${req.ip}`; } }));
  api.use(lockerAuth(deps.db, deps.clock));
  ordersRoutes(api, deps);
  postomatsRoutes(api, deps);
  directoriesRoutes(api, deps);
  app.use(LOCKER_API_BASE, api);

  // Public endpoints are limited per client address.
  app.use(['/api/v1/open-api', '/api/v1/public/postomat'], rateLimit({ ...limits, keyOf: (req) => `ip:${req.ip}` }));
  publicRoutes(app, deps);
}
