/**
 * Starts the whole cloud process from a config: storage, the locker link (embedded MQTT broker
 * or an external one), HTTP server and the event dispatcher. Used by main.ts, the demo launcher
 * and tests.
 */
import type { AddressInfo } from 'node:net';
import { authLimitsOf, httpLimitsOf, syncSettingsOf, targetPolicyOf, type CloudConfig } from './config.ts';
import { createHttpServer } from './http/server-limits.ts';
import { buildApp } from './app.ts';
import { systemClock, type Clock } from '../shared/clock.ts';
import { createLogger, type Logger } from './logger.ts';
import { openStorage, type Storage } from './storage/database.ts';
import { SandboxSlot } from './services/sandbox/fleet-port.ts';
import type { AppDeps } from './deps.ts';
import { createDispatcher, createWebhookSender } from './outbound.ts';
import type { WebhookSender } from './webhooks/sender.ts';
import type { Dispatcher } from './events/dispatcher.ts';
import { resolveJwtSecret } from './platform-api/jwt-secret.ts';
import { startSync, type SyncHandle } from './sync/index.ts';
import { PublishLeases } from './sync/publish-claim.ts';
import { createUnitOfWork } from './consequences.ts';
import { listenOn } from '../shared/listen.ts';
import { every, onDemandOr, type BackgroundTask } from './background.ts';
import { expireUnplacedOrders, lapseReservations } from './services/order-expiry.ts';
import { runBulkJobs } from './services/platform/bulk-rewrites.ts';
import { startRetention } from './retention/pruner.ts';
import { brokerAtRequestHost } from './enrolment/routes.ts';
import { newRequestScope, withRequestIds } from './http/request-id.ts';
import { CloudMetrics } from './metrics/cloud-metrics.ts';
import { registerDatabaseGauges } from './metrics/database-gauges.ts';
import { registerFleetGauges } from './metrics/fleet-gauges.ts';
import { SyncLag } from './metrics/sync-lag.ts';
import { mountMetricsRoute, startMetricsListener, type MetricsListener } from './metrics/endpoint.ts';

/** Orders archived per transaction by the expiry. */
const EXPIRY_BATCH = 200;

export interface CloudHandle {
  url: string;
  port: number;
  storage: Storage;
  deps: AppDeps;
  dispatcher: Dispatcher;
  /** webhook subscriptions' deliveries (issue 22) */
  webhookSender: WebhookSender;
  sync: SyncHandle;
  /** archives orders never placed; runNow() for tests and the operator */
  orderExpiry: BackgroundTask;
  metrics: CloudMetrics;
  /** the loopback /metrics listener (METRICS_PORT), when it started */
  metricsUrl?: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  /** reuse an already opened storage (tests) */
  storage?: Storage;
}

/**
 * What the HTTP app is built from, as far as the configuration says: startCloud adds the locker
 * link, the sandbox slot and the metrics; an app-level test (test/helpers/app.ts) serves it alone.
 */
export function appDepsOf(
  config: CloudConfig,
  parts: Pick<AppDeps, 'db' | 'dialect' | 'clock' | 'logger' | 'uow'>,
): AppDeps {
  return {
    ...parts,
    config: {
      rateLimit: { max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS },
      mapUrlTemplate: config.MAP_URL_TEMPLATE,
      jwtSecret: resolveJwtSecret(config),
      authLimits: authLimitsOf(config),
      pendingOrdersPerLocker: config.PENDING_ORDERS_PER_LOCKER,
      overbookingRatio: config.OVERBOOKING_RATIO,
      outboundTargets: targetPolicyOf(config),
    },
  };
}

export async function startCloud(config: CloudConfig, options: StartOptions = {}): Promise<CloudHandle> {
  // Every line written while a request is handled carries its id (http/request-id.ts).
  const requests = newRequestScope();
  const logger = withRequestIds(options.logger ?? createLogger({ level: config.LOG_LEVEL }), requests);
  const clock = options.clock ?? systemClock;
  const storage =
    options.storage ??
    (await openStorage(config.DATABASE_URL, {
      reads: config.SQLITE_READS,
      namedStatements: config.POSTGRES_NAMED_STATEMENTS === 'on',
    }));
  const closeOwnStorage = () => (options.storage ? Promise.resolve() : storage.close());
  const metrics = new CloudMetrics();
  storage.onStatement((ms) => metrics.queryDuration.observe(ms / 1000));
  registerDatabaseGauges(metrics, storage, clock);
  registerFleetGauges(metrics, storage.db);
  const syncLag = new SyncLag(metrics.syncLag);
  // Wake-ups after commit, from this process and (through the database) from every other one.
  const feed = storage.changes;
  // The publisher's leases: this process's changes take their lockers' leases as they commit.
  const leases = new PublishLeases(clock);
  const uow = createUnitOfWork(storage.db, feed, leases);
  // Before HTTP: an order created by the first request must find the locker link running.
  const sync = await startSync(syncSettingsOf(config), {
    db: storage.db,
    uow,
    clock,
    logger,
    eventMaxAttempts: config.LOCKER_EVENT_MAX_ATTEMPTS,
    onEvent: (outcome) => metrics.lockerEvent(outcome),
    leases,
    onPublished: (lockerId) => {
      metrics.syncPublished.inc();
      syncLag.published(lockerId);
    },
  }).catch(async (err) => {
    storage.onStatement(undefined);
    await closeOwnStorage();
    throw err;
  });
  const deps: AppDeps = {
    ...appDepsOf(config, { db: storage.db, dialect: storage.dialect, clock, logger, uow }),
    // The fleet is plugged in once it runs (scripts/start-all.ts): its agents need this cloud's broker first.
    sandbox: config.SANDBOX ? new SandboxSlot() : undefined,
    agentBrokerUrl: config.AGENT_MQTT_URL ? () => config.AGENT_MQTT_URL! : brokerAtRequestHost(sync.mqttUrl),
    requests,
    metrics,
    brokerConnected: () => sync.connected(),
  };
  const app = buildApp(deps, config.METRICS_TOKEN ? [(a) => mountMetricsRoute(a, metrics, config.METRICS_TOKEN!)] : []);
  const server = createHttpServer(app, httpLimitsOf(config), logger);
  await listenOn(
    server,
    config.PORT,
    config.HOST,
    `PORT ${config.PORT} is already in use: choose another with PORT=…`,
  ).catch(async (err) => {
    storage.onStatement(undefined);
    await sync.close();
    await closeOwnStorage();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${port}`;
  const dispatcher = createDispatcher(config, storage, clock, logger, url, undefined, (kind, state) =>
    metrics.delivered(kind, state),
  );
  const metricsListener: MetricsListener | undefined =
    config.METRICS_PORT === 'off'
      ? undefined
      : await startMetricsListener(metrics, config.METRICS_HOST, config.METRICS_PORT, logger);
  dispatcher.start();
  const webhookSender = createWebhookSender(config, storage, clock, logger);
  // WEBHOOKS_ENABLED=false: subscription deliveries wait (PENDING) until a process sends them.
  if (config.WEBHOOKS_ENABLED) webhookSender.start();
  // An order's codes go to its locker, and its events to their receivers, right after the
  // commit that made them; the polls behind these are only a safety net.
  // Outside the request whose commit woke them: the publisher's and the dispatcher's timers
  // would otherwise carry that request's id into every later round's log lines.
  const stopHearing = feed.onChange((change) =>
    requests.exit(() => {
      if (change.lockers !== 'all' && change.lockers.length) syncLag.changed(change.lockers);
      if (change.lockers === 'all' || change.lockers.length) sync.publisher.soon(change.commands);
      if (change.outbox) {
        dispatcher.wake();
        webhookSender.wake();
      }
      // Another process revoked a credential (or committed something unknown, on SQLite).
      if (change.credentials) deps.credentials?.revokeAll();
    }),
  );
  // Finished work is pruned past its retention window (docs/retention.md).
  const retention = startRetention(config, { db: storage.db, clock, logger });
  // Orders never placed free their locker's codes (docs/decisions.md).
  const orderExpiry = onDemandOr(
    'order expiry',
    config.ORDER_EXPIRY_INTERVAL_MS,
    async () => {
      const n = await expireUnplacedOrders(
        { uow, clock, logger },
        { days: config.UNPLACED_ORDER_DAYS, batch: EXPIRY_BATCH },
      );
      if (n) logger.info('unplaced orders expired', { count: n, days: config.UNPLACED_ORDER_DAYS });
      // Sized orders whose reservation lapsed (issue 22) free their cells and codes.
      const lapsed = await lapseReservations({ uow, clock, logger }, { batch: EXPIRY_BATCH });
      if (lapsed) logger.info('reservations lapsed', { count: lapsed });
    },
    logger,
  );
  // Rewrites an operator change queued but did not finish (its process died half-way).
  const bulkJobs = every(
    'bulk rewrites',
    60_000,
    async () => {
      const rows = await runBulkJobs(storage.db);
      if (rows) logger.info('bulk rewrites finished', { rows });
    },
    logger,
  );
  try {
    await feed.listen((err) =>
      logger.warn('change notifications from other processes interrupted: relying on polling meanwhile', {
        err: err.message,
      }),
    );
  } catch (err) {
    logger.warn('change notifications from other processes unavailable: relying on polling', {
      err: (err as Error).message,
    });
  }
  return {
    url,
    port,
    storage,
    deps,
    dispatcher,
    webhookSender,
    sync,
    orderExpiry,
    metrics,
    metricsUrl: metricsListener?.url,
    async close() {
      stopHearing();
      await metricsListener?.close();
      storage.onStatement(undefined);
      await orderExpiry.stop();
      await bulkJobs.stop();
      await retention.stop();
      await dispatcher.stop();
      await webhookSender.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      await sync.close();
      await closeOwnStorage();
    },
  };
}
