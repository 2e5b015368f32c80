/** Builds the Express app from its routers. It never listens: main.ts and the tests do. */
import express from 'express';
import type { AppDeps, Mount } from './deps.ts';
import { errorHandler, notFoundHandler } from './http/errors-middleware.ts';
import { jsonBody } from './http/json-body.ts';
import { mountLockerApi } from './locker-api/index.ts';
import { platformApi } from './platform-api/index.ts';
import { guardsOf } from './http/app-guards.ts';
import { mountSandbox } from './sandbox/routes.ts';
import { mountContractDocs } from './openapi/routes.ts';
import { mountEnrolment } from './enrolment/routes.ts';
import { newRequestScope, requestIds, withRequestIds } from './http/request-id.ts';
import { mountProbes } from './http/readiness.ts';
import { httpMetrics } from './metrics/http-metrics.ts';

export type { Mount };

export function buildApp(deps: AppDeps, extraMounts: Mount[] = []): express.Express {
  // One set of limit tables and credential caches per app, on deps where the code that revokes reaches them.
  guardsOf(deps);
  if (!deps.requests) {
    deps.requests = newRequestScope();
    deps.logger = withRequestIds(deps.logger, deps.requests);
  }
  const app = express();
  app.disable('x-powered-by');
  // No ETags: they cost a SHA-1 of every JSON answer, and API clients do not revalidate.
  app.set('etag', false);
  app.set('query parser', 'simple');
  const json = jsonBody('1mb');
  // First: every answer, refusals by the guards included, is counted and carries the id.
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(requestIds(deps.requests));
  // The Locker API parses bodies only on its POST routes (routes-under.ts), so it comes first.
  mountLockerApi(app, deps, json);
  // Absent unless SANDBOX=true: then its paths are the app's 404 like any unknown path.
  if (deps.sandbox) mountSandbox(app, deps, json, { slot: deps.sandbox });
  // No endpoint reads a body on GET: skipping the parser there keeps it off the other families' reads.
  app.use((req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : json(req, res, next)));
  app.use(platformApi(deps));
  mountEnrolment(app, deps);
  for (const mount of extraMounts) mount(app, deps);
  mountProbes(app, { db: deps.db, brokerConnected: deps.brokerConnected });
  mountContractDocs(app);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
