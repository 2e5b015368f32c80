/** Starts the real cloud HTTP server on a free port, on a test storage, and talks to it with fetch. */
import { startCloud, type CloudHandle } from '../../cloud/server.ts';
import { loadConfig } from '../../cloud/config.ts';
import { ManualClock, type Clock } from '../../shared/clock.ts';
import { silentLogger, type Logger } from '../../cloud/logger.ts';
import { openTestStorage, type TestDialect, type TestStorage } from './storage.ts';

/** Signs platform user tokens in tests (a test may forge tokens with it). */
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';

export interface TestCloud extends CloudHandle {
  storage: TestStorage;
  clock: Clock;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

/** What tests of the API need of a server, whole cloud (TestCloud) or app alone (app.ts TestApp). */
export type TestApi = Pick<TestCloud, 'url' | 'request' | 'storage' | 'clock'>;

export interface RequestOptions {
  body?: unknown;
  /** raw body text (for malformed JSON) */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
  redirect?: RequestRedirect;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /** the parsed JSON, without an error body's `requestId` (the spec's shape, which tests compare whole) */
  body: any;
  /** an error body's `requestId` */
  requestId?: string;
  text: string;
}

/** The configuration every test cloud starts from; `env` overrides it. */
export function testConfig(storage: TestStorage, env: Record<string, string> = {}) {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: storage.databaseUrl,
    RATE_LIMIT_MAX: '0',
    MQTT_PORT: '0',
    JWT_SECRET: TEST_JWT_SECRET,
    ORDER_EXPIRY_INTERVAL_MS: '0',
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    METRICS_PORT: '0',
    ...env,
  });
}

export async function startTestCloud(
  dialect: TestDialect,
  options: { clock?: Clock; env?: Record<string, string>; logger?: Logger; reuse?: TestStorage } = {},
): Promise<TestCloud> {
  // `reuse`: a restarted cloud on the storage of a previous one (close() leaves it open).
  const storage = options.reuse ?? (await openTestStorage(dialect));
  const clock = options.clock ?? new ManualClock(new Date());
  // MQTT_PORT 0: an embedded broker on a free port (1883 may be a system Mosquitto).
  // ORDER_EXPIRY_INTERVAL_MS 0: seeded orders dated long ago are not expired behind a test's
  // back; a test of expiry runs it with `cloud.orderExpiry.runNow()`. Receivers in tests listen
  // on 127.0.0.1: allowed as webhook targets, as the demo allows them.
  const config = testConfig(storage, options.env);
  const cloud = await startCloud(config, { storage, clock, logger: options.logger ?? silentLogger }).catch(
    async (err) => {
      if (!options.reuse) await storage.destroy();
      throw err;
    },
  );
  const request = requester(cloud.url);
  return {
    ...cloud,
    storage,
    clock,
    request,
    async stop() {
      await cloud.close();
      await storage.destroy();
    },
  };
}

/** Requests to a server under test, answers parsed as the tests compare them. */
export function requester(baseUrl: string) {
  return async (method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, { method, headers, body, redirect: o.redirect ?? 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    let requestId: string | undefined;
    if (parsed && typeof parsed === 'object' && 'requestId' in parsed) {
      ({ requestId, ...parsed } = parsed as { requestId: string });
    }
    return { status: res.status, headers: res.headers, body: parsed, requestId, text };
  };
}
