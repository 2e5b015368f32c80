/**
 * Counts and times every answer by its route pattern (`/api/v1/order/:id`, never the id itself)
 * and status. The pattern is taken when a route starts (route.ts notes it), because an error
 * passed on to the error handler leaves the routers and loses it; a request no route matched is
 * `unmatched`.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { CloudMetrics } from './cloud-metrics.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** The pattern of the route handling `req`, as metrics and logs name it. */
export const routePattern = (req: Request): string | undefined =>
  req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined;

/** Called by a route's handler: notes its pattern for the metrics. */
export function noteRoute(req: Request, res: Response): void {
  res.locals.route ??= routePattern(req);
}

export function httpMetrics(metrics: CloudMetrics): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      const labels = {
        method: METHODS.has(req.method) ? req.method : 'OTHER',
        route: (res.locals.route as string | undefined) ?? routePattern(req) ?? 'unmatched',
        status: String(res.statusCode),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    });
    next();
  };
}
