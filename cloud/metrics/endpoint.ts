/**
 * Where `/metrics` is served (docs/operations.md, "Metrics"): by default on a listener of its
 * own bound to loopback (METRICS_HOST, METRICS_PORT), which a local Prometheus or agent scrapes
 * and nothing outside the machine reaches; and, when METRICS_TOKEN is set, also on the API port
 * behind `Authorization: Bearer <METRICS_TOKEN>`, for a Prometheus elsewhere.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';
import { bearerToken } from '../http/bearer.ts';
import { HttpError } from '../http/http-error.ts';
import type { CloudMetrics } from './cloud-metrics.ts';

async function answer(metrics: CloudMetrics, res: http.ServerResponse): Promise<void> {
  const { contentType, body } = await metrics.render();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

const sameSecret = (a: string, b: string) => {
  const [x, y] = [crypto.createHash('sha256').update(a).digest(), crypto.createHash('sha256').update(b).digest()];
  return crypto.timingSafeEqual(x, y);
};

/** `/metrics` on the API port, for the holder of the token only (401 otherwise, like the API's own keys). */
export function mountMetricsRoute(app: Express, metrics: CloudMetrics, token: string): void {
  const handler: RequestHandler = (req, res, next) => {
    const given = bearerToken(req);
    if (given === undefined || !sameSecret(given, token)) return next(new HttpError(401, 'Unauthorized'));
    answer(metrics, res).catch(next);
  };
  app.get('/metrics', handler);
}

export interface MetricsListener {
  /** where it listens (its port is the chosen one when METRICS_PORT=0) */
  url: string;
  close(): Promise<void>;
}

/**
 * The loopback listener. A port already taken (another instance on the same machine left its
 * METRICS_PORT as the default) is a warning, not a failed start: orders matter more than numbers.
 */
export async function startMetricsListener(
  metrics: CloudMetrics,
  host: string,
  port: number,
  logger: Logger,
): Promise<MetricsListener | undefined> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    answer(metrics, res).catch((err) => {
      logger.error('metrics scrape failed', { err });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      logger.warn('metrics listener not started: set METRICS_PORT to a free port (or off)', {
        host,
        port,
        err: err.code ?? err.message,
      });
      resolve(false);
    });
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return undefined;
  const bound = server.address() as AddressInfo;
  const shownHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${shownHost}:${bound.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
