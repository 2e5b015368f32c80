/** The Locker API family, mounted at /api/v1/integration/company (plus its public endpoints). */
import type { Express, RequestHandler } from 'express';
import type { AppDeps } from '../deps.ts';
import { lockerAuth, lockerCaller } from '../http/locker-auth.ts';
import { guardsOf } from '../http/app-guards.ts';
import { addressOf } from '../http/client-address.ts';
import { routesUnder } from '../http/routes-under.ts';
import { ordersRoutes } from './orders.ts';
import { postomatsRoutes } from './postomats.ts';
import { directoriesRoutes } from './directories.ts';
import { publicRoutes } from './public.ts';
import { extensionRoutes } from './extensions.ts';
import { sizingRoutes } from './sizing.ts';

export const LOCKER_API_BASE = '/api/v1/integration/company';

/**
 * Mounts the family on the app itself (see routes-under.ts). `json` parses the POST bodies of
 * its routes, after authentication; the app's own body parser comes after this family.
 */
export function mountLockerApi(app: Express, deps: AppDeps, json: RequestHandler): void {
  const appGuards = guardsOf(deps);
  const { limits } = appGuards;
  // Guessing is stopped per address before any lookup (lockerAuth); requests are counted per
  // key once it is known, so made-up keys open no windows.
  const perKey = limits.requests('locker:key', (req) => lockerCaller(req).keyId);
  const guards = [lockerAuth(deps.db, appGuards), perKey];
  const api = routesUnder(app, LOCKER_API_BASE, { guards, body: json });
  ordersRoutes(api, deps);
  postomatsRoutes(api, deps);
  directoriesRoutes(api, deps);
  extensionRoutes(api, deps);
  sizingRoutes(api, deps);
  // A path under the base that no route serves is counted and authenticated like the others
  // before it is a 404: unauthenticated callers learn nothing about which paths exist.
  app.use(LOCKER_API_BASE, ...guards);

  // Public endpoints are limited per client address.
  app.use(['/api/v1/open-api', '/api/v1/public/postomat'], limits.requests('locker-public:address', addressOf));
  publicRoutes(app, deps);
}
