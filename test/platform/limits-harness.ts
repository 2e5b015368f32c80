/**
 * The real app on a real HTTP server, over a test storage whose statements are counted, with
 * the limits a test chooses, and requests that may come from another loopback address
 * (127.0.0.2, …): what the failure limits per address need to be seen from outside.
 */
import { createUnitOfWork } from '../../cloud/consequences.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { buildApp } from '../../cloud/app.ts';
import { DEFAULT_MAP_URL_TEMPLATE } from '../../cloud/config.ts';
import { ManualClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { DEFAULT_AUTH_LIMITS, type AppDeps, type AuthLimitsConfig, type RateLimitConfig } from '../../cloud/deps.ts';
import { openTestStorage, type TestDialect, type TestStorage } from '../helpers/storage.ts';
import { TEST_JWT_SECRET } from '../helpers/cloud.ts';

/** Counts the statements the app really runs: a guess that reaches the database shows here. */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.count++;
    return args.result;
  }
}

export interface LimitsApp {
  storage: TestStorage;
  deps: AppDeps;
  clock: ManualClock;
  /** statements the app has run so far */
  statements(): number;
  /** `body` without an error body's `requestId` (the spec's shape), which comes as `requestId` */
  request(
    method: string,
    path: string,
    options?: { token?: string; headers?: Record<string, string>; body?: unknown; from?: string },
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any; requestId?: string }>;
  stop(): Promise<void>;
}

export async function startLimitsApp(
  dialect: TestDialect,
  options: { authLimits?: Partial<AuthLimitsConfig>; rateLimit?: RateLimitConfig; clock?: ManualClock } = {},
): Promise<LimitsApp> {
  const storage = await openTestStorage(dialect);
  const counter = new StatementCounter();
  const clock = options.clock ?? new ManualClock('2026-05-01T08:00:00.000Z');
  const deps: AppDeps = {
    db: storage.db.withPlugin(counter),
    dialect: storage.dialect,
    clock,
    logger: silentLogger,
    uow: createUnitOfWork(storage.db, storage.changes),
    config: {
      mapUrlTemplate: DEFAULT_MAP_URL_TEMPLATE,
      rateLimit: options.rateLimit ?? { max: 0, windowMs: 60_000 },
      jwtSecret: TEST_JWT_SECRET,
      authLimits: { ...DEFAULT_AUTH_LIMITS, ...options.authLimits },
    },
  };
  const server = http.createServer(buildApp(deps));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // One connection per request, so that each really comes from the address it names.
  const agent = new http.Agent({ keepAlive: false });
  return {
    storage,
    deps,
    clock,
    statements: () => counter.count,
    request: (method, path, o = {}) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { ...(o.headers ?? {}) };
        if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
        const body = o.body === undefined ? undefined : JSON.stringify(o.body);
        if (body !== undefined) headers['content-type'] = 'application/json';
        const req = http.request(
          { host: '127.0.0.1', port, method, path, headers, agent, localAddress: o.from ?? '127.0.0.1' },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => {
              let body = text ? JSON.parse(text) : undefined;
              let requestId: string | undefined;
              if (body && typeof body === 'object' && 'requestId' in body) ({ requestId, ...body } = body);
              resolve({ status: res.statusCode!, headers: res.headers, body, requestId });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
      await storage.destroy();
    },
  };
}
