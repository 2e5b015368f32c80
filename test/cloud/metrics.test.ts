/**
 * `/metrics` (cloud/metrics): scraped after a real flow (an order created over HTTP, placed and
 * collected at a simulated locker over MQTT, its notifications sent), it names every series an
 * operator watches with values the flow must have moved; it is served on the loopback listener,
 * and on the API port only with METRICS_TOKEN.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud } from '../helpers/cloud.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import {
  codesOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';
import { untilStatus } from '../sync/scenarios.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';

/** value of one sample of the text exposition, or undefined */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`/metrics after an order's life (${dialect.name})`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      w = await startSyncWorld(dialect, { env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
      await w.db
        .updateTable('locker_company')
        .set({ notificationUrl: receiver.url })
        .where('id', '=', w.company.id)
        .execute();
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
    });
    after(async () => {
      await w.close();
      await receiver.close();
    });

    it('names every series, moved by the flow', async () => {
      const order = await w.createOrder(locker.id, { sendMessage: true });
      const codes = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      await useCell(sim, cell, true);
      await untilStatus(w, order.id, 'DELIVERED');
      assert.equal(await typeAndWaitOpen(sim, codes.UP), cell);
      await useCell(sim, cell, false);
      await untilStatus(w, order.id, 'COMPLETED');
      await until('notifications delivered', () => (receiver.received.length >= 1 ? true : undefined));
      // Health reports of healthy lockers are written in batches (cloud/sync/health-writes.ts): written now.
      await w.cloud.sync.inbound.idle();
      const notFound = await w.cloud.request('GET', `/api/v1/integration/company/order/${'x'.repeat(24)}`, {
        token: w.company.key,
      });
      assert.equal(notFound.status, 404);

      const res = await fetch(w.cloud.metricsUrl!);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      const has = (name: string, labels?: Record<string, string>) => {
        const v = sample(text, name, labels);
        assert.notEqual(v, undefined, `${name} ${JSON.stringify(labels ?? {})} missing`);
        return v!;
      };
      const P = 'parcel_locker_';
      assert.equal(
        has(`${P}http_requests_total`, {
          method: 'POST',
          route: '/api/v1/integration/company/order/create',
          status: '200',
        }),
        1,
      );
      assert.equal(
        has(`${P}http_requests_total`, {
          method: 'GET',
          route: '/api/v1/integration/company/order/:id',
          status: '404',
        }),
        1,
        'a refused request keeps its route pattern, never the id',
      );
      assert.ok(!text.includes('x'.repeat(24)), 'no id from a path becomes a label');
      assert.equal(
        has(`${P}http_request_duration_seconds_count`, {
          method: 'POST',
          route: '/api/v1/integration/company/order/create',
          status: '200',
        }),
        1,
      );
      assert.ok(has('nodejs_eventloop_lag_seconds') >= 0);
      assert.ok(has('nodejs_eventloop_lag_p99_seconds') >= 0);
      assert.ok(has(`${P}db_query_duration_seconds_count`) > 10);
      assert.equal(has(`${P}outbox_oldest_pending_age_seconds`), 0, 'everything sent');
      assert.equal(has(`${P}deliveries_total`, { kind: 'COMPANY_NOTIFICATION', outcome: 'SENT' }), 1, 'COMPLETED');
      assert.equal(has(`${P}deliveries_total`, { kind: 'SMS', outcome: 'SENT' }), 1, 'the pickup code on DELIVERED');
      assert.ok(
        has(`${P}sync_lag_seconds_count`) >= 1,
        'the new order, then its placement and pickup, published after commit',
      );
      assert.ok(has(`${P}sync_published_total`) >= 1);
      assert.equal(has(`${P}lockers_connected`), 1);
      assert.equal(has(`${P}locker_events_total`, { outcome: 'APPLIED' }), 2, 'PLACED and PICKED_UP');
      assert.equal(has(`${P}commands_pending`, { state: 'PENDING' }), 0);
      assert.equal(has(`${P}commands_pending`, { state: 'SENT' }), 0);
      // The agent's health report (sent on connecting): one locker, its board answering, nothing waiting.
      assert.equal(has(`${P}fleet_lockers_reporting_health`), 1);
      assert.equal(has(`${P}fleet_lockers_with_silent_board`), 0);
      assert.ok(has(`${P}fleet_board_timeouts`) >= 0);
      assert.ok(has(`${P}fleet_agent_outbox_events`) >= 0);
      if (dialect.name === 'postgres') assert.ok(has(`${P}db_pool_connections`, { state: 'total' }) >= 1);
    });

    it('counts a backlog and its age while a delivery waits', async () => {
      await w.db
        .insertInto('outbox_event')
        .values({
          id: 'metrics-backlog-1',
          kind: 'WEBHOOK',
          event: 'TEST',
          orderId: null,
          target: 'http://127.0.0.1:9/w',
          payload: '{}',
          secretHeader: null,
          state: 'PENDING',
          claimedBy: null,
          claimedUntil: null,
          httpStatus: null,
          error: null,
          latencyMs: null,
          createdAt: new Date(Date.now() - 120_000).toISOString(),
          sentAt: null,
        })
        .execute();
      await new Promise((r) => setTimeout(r, 1_100)); // past the one-second reuse of the previous scrape's read
      const text = await (await fetch(w.cloud.metricsUrl!)).text();
      assert.equal(sample(text, 'parcel_locker_outbox_backlog', { kind: 'WEBHOOK' }), 1);
      assert.ok(sample(text, 'parcel_locker_outbox_oldest_pending_age_seconds')! >= 120);
      await w.db.deleteFrom('outbox_event').where('id', '=', 'metrics-backlog-1').execute();
    });

    it('answers on the API port only with the token', async () => {
      assert.equal((await w.cloud.request('GET', '/metrics')).status, 401);
      assert.equal((await w.cloud.request('GET', '/metrics', { token: 'metrics-token-wrong-0000' })).status, 401);
      const ok = await w.cloud.request('GET', '/metrics', { token: 'metrics-token-0123456789' });
      assert.equal(ok.status, 200);
      assert.ok(
        sample(ok.text, 'parcel_locker_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })! >= 2,
      );
    });
  });
}

describe('where /metrics is served', () => {
  it('listens on loopback by default and not on the API port without a token', async () => {
    const cloud = await startTestCloud(DIALECTS[0]!);
    try {
      assert.match(cloud.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      assert.equal((await fetch(cloud.metricsUrl!)).status, 200);
      assert.equal((await fetch(cloud.metricsUrl!.replace('/metrics', '/other'))).status, 404);
      assert.equal((await cloud.request('GET', '/metrics')).status, 404);
    } finally {
      await cloud.stop();
    }
  });

  it('starts without its listener when the port is taken, and with METRICS_PORT=off', async () => {
    const first = await startTestCloud(DIALECTS[0]!);
    try {
      const port = new URL(first.metricsUrl!).port;
      const second = await startTestCloud(DIALECTS[0]!, { env: { METRICS_PORT: port } });
      try {
        assert.equal(second.metricsUrl, undefined);
        assert.equal((await second.request('GET', '/health')).status, 200);
      } finally {
        await second.stop();
      }
      const off = await startTestCloud(DIALECTS[0]!, { env: { METRICS_PORT: 'off' } });
      assert.equal(off.metricsUrl, undefined);
      await off.stop();
    } finally {
      await first.stop();
    }
  });
});

describe('metrics configuration', () => {
  it('defaults to a loopback listener on 9464, takes off, and refuses a short token or a bad port', async () => {
    const { loadConfig, ConfigError } = await import('../../cloud/config.ts');
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.METRICS_HOST, defaults.METRICS_PORT, defaults.METRICS_TOKEN],
      ['127.0.0.1', 9464, undefined],
    );
    assert.equal(loadConfig({ METRICS_PORT: 'off' }).METRICS_PORT, 'off');
    assert.equal(loadConfig({ METRICS_PORT: '0' }).METRICS_PORT, 0);
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'short' }),
      (e: Error) => e instanceof ConfigError && /METRICS_TOKEN must be at least 16 characters/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ METRICS_PORT: '70000' }),
      (e: Error) => e instanceof ConfigError && /METRICS_PORT/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ METRICS_PORT: 'on' }),
      (e: Error) => e instanceof ConfigError && /METRICS_PORT/.test(e.message),
    );
  });
});
