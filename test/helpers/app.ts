/**
 * The HTTP app alone, served on a free port by the cloud's own server (its limits and error
 * handling), on a test storage: no MQTT broker, locker link, event dispatcher or background
 * jobs. For tests of the API itself; what the app records for the rest of the system (sync
 * changes, outbox rows) is still written, in the same transactions, and can be read from the
 * storage. Tests of the whole flow start the whole cloud (cloud.ts, startTestCloud).
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../cloud/app.ts';
import { httpLimitsOf } from '../../cloud/config.ts';
import { createUnitOfWork } from '../../cloud/consequences.ts';
import type { AppDeps } from '../../cloud/deps.ts';
import { createHttpServer } from '../../cloud/http/server-limits.ts';
import { silentLogger, type Logger } from '../../cloud/logger.ts';
import { appDepsOf } from '../../cloud/server.ts';
import { ManualClock, type Clock } from '../../shared/clock.ts';
import { listenOn } from '../../shared/listen.ts';
import { requester, testConfig, type TestResponse, type RequestOptions } from './cloud.ts';
import { openTestStorage, type TestDialect, type TestStorage } from './storage.ts';

export interface TestApp {
  url: string;
  storage: TestStorage;
  deps: AppDeps;
  clock: Clock;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

/** `reuse`: a storage opened (and seeded) by the test; stop() destroys it, as startTestCloud's does. */
export async function startTestApp(
  dialect: TestDialect,
  options: { clock?: Clock; env?: Record<string, string>; logger?: Logger; reuse?: TestStorage } = {},
): Promise<TestApp> {
  const storage = options.reuse ?? (await openTestStorage(dialect));
  const clock = options.clock ?? new ManualClock(new Date());
  const config = testConfig(storage, options.env);
  const logger = options.logger ?? silentLogger;
  const deps = appDepsOf(config, {
    db: storage.db,
    dialect: storage.dialect,
    clock,
    logger,
    uow: createUnitOfWork(storage.db, storage.changes),
  });
  const server = createHttpServer(buildApp(deps), httpLimitsOf(config), logger);
  try {
    await listenOn(server, 0, '127.0.0.1', 'no free port');
  } catch (err) {
    if (!options.reuse) await storage.destroy();
    throw err;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    storage,
    deps,
    clock,
    request: requester(url),
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await storage.destroy();
    },
  };
}
