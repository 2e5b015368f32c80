/**
 * Beyond one machine (issue 21): three cloud instances on one PostgreSQL database and one
 * Mosquitto — A in this process (it seeds the data), B and C as their own processes, each with
 * its own broker user — and simulated lockers whose agents log in with their own credentials
 * under the documented ACL. Requests go to all three in turn.
 *
 * Needs TEST_DATABASE_URL and the mosquitto binary (`.ci/run` provides both); without them the
 * suite says what is missing and skips.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runOperator } from '../../cloud/operator/cli.ts';
import { createLockerApiKey } from '../../cloud/services/admin/companies.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { LogCapture } from '../helpers/secrets-scan.ts';
import type { PrivateMosquitto } from '../helpers/mosquitto.ts';
import { seedMarketWorld, marketClient, newKey } from '../helpers/market-world.ts';
import {
  BASE,
  codesOf,
  orderRow,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';
import type { CloudProcess } from '../soak/cloud-process.ts';
import { BrokerMonitor, cloudProcess, missingParts, requester, startScaleBroker } from './instances.ts';

const missing = missingParts();
const RATE_LIMIT = 40;

describe('several cloud instances on one PostgreSQL and one Mosquitto', { skip: missing }, () => {
  const logs = new LogCapture();
  let broker: PrivateMosquitto;
  let monitor: BrokerMonitor;
  let receiver: Receiver;
  let w: SyncWorld;
  let b: CloudProcess;
  let c: CloudProcess;
  let lockers: CloudLocker[];
  let sims: SimLocker[];
  /** requests to A, B and C in turn */
  let turn = 0;
  const instances = () => [w.cloud.request, requester(b.url), requester(c.url)];
  const next = () => instances()[turn++ % 3]!;

  before(async () => {
    const postgres = DIALECTS.find((d) => d.name === 'postgres')!;
    broker = await startScaleBroker(2);
    monitor = await BrokerMonitor.start(broker.url);
    receiver = await startReceiver();
    // Polls are a safety net (2 s) under the wake-ups between processes; a lease short enough
    // that a killed instance's claimed deliveries go out again within the suite.
    const shared = {
      SYNC_POLL_MS: '2000',
      EVENT_POLL_MS: '2000',
      EVENT_TIMEOUT_MS: '1000',
      EVENT_LEASE_MS: '3000',
      MQTT_URL: broker.url,
    };
    w = await startSyncWorld(postgres, {
      env: { ...shared, MQTT_USERNAME: 'plk-cloud', MQTT_PASSWORD: broker.cloudPassword },
    });
    await w.db
      .updateTable('locker_company')
      .set({ notificationUrl: receiver.url })
      .where('id', '=', w.company.id)
      .execute();
    const env = {
      ...shared,
      ...w.cloud.storage.childEnv,
      DATABASE_URL: w.cloud.storage.databaseUrl,
      HOST: '127.0.0.1',
      JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      ORDER_EXPIRY_INTERVAL_MS: '0',
      RATE_LIMIT_MAX: String(RATE_LIMIT),
      RATE_LIMIT_WINDOW_MS: '600000',
      LOG_LEVEL: 'info',
    };
    [b, c] = await Promise.all([cloudProcess(1, env, logs), cloudProcess(2, env, logs)]);
    lockers = [await w.newLocker('Scale 1'), await w.newLocker('Scale 2')];
    for (const l of lockers) await broker.allow(l.id, l.agent.password);
    sims = [];
    for (const l of lockers) sims.push(await w.startAgent(l));
    for (const l of lockers) await untilOnline(w, l.id);
  });

  after(async () => {
    await Promise.all([b?.stop(), c?.stop()]);
    await monitor?.stop();
    await w?.close();
    await receiver?.close();
    await broker?.stop();
  });

  /** One order's whole life with each step on another instance; returns its id. */
  async function orderLife(locker: CloudLocker, sim: SimLocker): Promise<string> {
    const created = await next()('POST', `${BASE}/order/create`, {
      token: w.company.key,
      body: { toUserPhone: '+996555000111', postomatId: locker.id, sendMessage: true },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id as string;
    const code = async (kind: string) =>
      (await next()('GET', `${BASE}/order/${id}/${kind}`, { token: w.company.key })).body.password as string;
    const down = await code('down-code');
    const up = await code('up-code');
    await untilAgent(sim, id, 'order known', (o) => o?.codes.DOWN === down);
    const cell = await typeAndWaitOpen(sim, down);
    await useCell(sim, cell, true);
    await until('DELIVERED, read on another instance', async () =>
      (await next()('GET', `${BASE}/order/${id}`, { token: w.company.key })).body.cellId ? true : undefined,
    );
    await untilAgent(sim, id, 'DELIVERED at the agent', (o) => o?.status === 'DELIVERED');
    assert.equal(await typeAndWaitOpen(sim, up), cell);
    await useCell(sim, cell, false);
    await until('COMPLETED', async () => ((await orderRow(w.db, id)).status === 'COMPLETED' ? true : undefined));
    return id;
  }

  const outbox = (orderId: string) =>
    w.db.selectFrom('outbox_event').select(['kind', 'event', 'state']).where('orderId', '=', orderId).execute();
  const notificationsOf = (orderId: string) => receiver.received.filter((r) => JSON.parse(r.body).orderId === orderId);

  it("carries an order's whole life across instances; every outbound event once, every sync change once", async () => {
    const id = await orderLife(lockers[0]!, sims[0]!);
    await until('notification', () => (notificationsOf(id).length ? true : undefined));
    await until('outbox settled', async () => ((await outbox(id)).every((r) => r.state === 'SENT') ? true : undefined));
    assert.deepEqual((await outbox(id)).map((r) => `${r.kind}:${r.event}`).sort(), [
      'COMPANY_NOTIFICATION:COMPLETED',
      'SMS:PICKUP_CODE',
    ]);
    // Three dispatchers were awake: the notification went out once.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(notificationsOf(id).length, 1);
    // Every version of the locker's orders reached it once, whichever instance published it.
    const deltas = monitor.of(`lockers/${lockers[0]!.id}/sync`).filter((m) => !m.full);
    const versions = deltas.map((m) => m.version);
    assert.ok(versions.length >= 3, `created, delivered, completed: ${JSON.stringify(versions)}`);
    assert.deepEqual(versions, [...new Set(versions)], 'no delta published twice');
    // Every event of the agent was applied once, whichever instance heard it first.
    const events = await w.db
      .selectFrom('locker_event')
      .select(['type', 'outcome'])
      .where('orderId', '=', id)
      .execute();
    assert.deepEqual(events.map((e) => `${e.type}:${e.outcome}`).sort(), ['PICKED_UP:APPLIED', 'PLACED:APPLIED']);
  });

  it('executes a staff command once', async () => {
    const [locker, sim] = [lockers[1]!, sims[1]!];
    const created = await next()('POST', `${BASE}/order/create`, {
      token: w.company.key,
      body: { toUserPhone: '+996555000112', postomatId: locker.id, sendMessage: false, pay: true },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id as string;
    const codes = await codesOf(w, id);
    await untilAgent(sim, id, 'order known', (o) => o !== undefined);
    const cell = await typeAndWaitOpen(sim, codes.DOWN);
    await useCell(sim, cell, true);
    await until('DELIVERED', async () => ((await orderRow(w.db, id)).status === 'DELIVERED' ? true : undefined));
    const from = sim.displayLines.length;
    const r = await runOperator(['order', 'subtract', '--id', id], {}, w.cloud.storage);
    assert.equal(r.code, 0, r.stderr);
    await waitForDisplay(sim, /open for removal/, from);
    await until('command answered', async () => {
      const cmd = await w.db
        .selectFrom('locker_command')
        .select('state')
        .where('orderId', '=', id)
        .executeTakeFirstOrThrow();
      return cmd.state === 'DONE' ? true : undefined;
    });
    await useCell(sim, cell, false);
    await until('SUBTRACTED', async () => ((await orderRow(w.db, id)).status === 'SUBTRACTED' ? true : undefined));
    const cmd = await w.db
      .selectFrom('locker_command')
      .select(['id', 'attempts'])
      .where('orderId', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(
      monitor.of(`lockers/${locker.id}/commands`).filter((m) => m.commandId === cmd.id).length,
      1,
      'published by one instance',
    );
    assert.equal(
      sim.displayLines.slice(from).filter((l) => /open for removal/.test(l)).length,
      1,
      'the cell opened once',
    );
  });

  it('loses nothing when an instance is killed mid-flow', async () => {
    // Orders created on every instance, then C killed while their parcels are being placed.
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await instances()[i]!('POST', `${BASE}/order/create`, {
        token: w.company.key,
        body: { toUserPhone: `+99655500020${i}`, postomatId: lockers[0]!.id, sendMessage: true, pay: true },
      });
      assert.equal(res.status, 200, res.text);
      ids.push(res.body.id);
    }
    const sim = sims[0]!;
    for (const [i, id] of ids.entries()) {
      const codes = await codesOf(w, id);
      await untilAgent(sim, id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      if (i === 1) await c.kill();
      await useCell(sim, cell, true);
    }
    for (const id of ids)
      await until(`${id} DELIVERED`, async () =>
        (await orderRow(w.db, id)).status === 'DELIVERED' ? true : undefined,
      );
    // What the survivors publish reaches the agent: each order DELIVERED there too.
    for (const id of ids) await untilAgent(sim, id, 'DELIVERED at the agent', (o) => o?.status === 'DELIVERED');
    // C comes back; a request on it reads what happened while it was away.
    await c.start();
    const read = await requester(c.url)('GET', `${BASE}/order/${ids[1]}`, { token: w.company.key });
    assert.equal(read.status, 200);
    assert.ok(read.body.cellId);
    // Nothing left behind: each placement's SMS sent (by whichever instance), no delivery stuck, no delta unpublished.
    await until('outbox drained', async () =>
      (await w.db.selectFrom('outbox_event').select('id').where('state', 'in', ['PENDING', 'SENDING']).execute())
        .length === 0
        ? true
        : undefined,
    );
    for (const id of ids)
      assert.deepEqual(
        (await outbox(id)).map((r) => `${r.kind}:${r.event}:${r.state}`),
        ['SMS:PICKUP_CODE:SENT'],
      );
    await until('deltas published', async () =>
      (await w.db.selectFrom('locker_sync').select('postomatId').whereRef('version', '>', 'publishedVersion').execute())
        .length === 0
        ? true
        : undefined,
    );
  });

  it('counts rate limits per instance, as documented, and a revoked key stops working on every instance', async () => {
    const fresh = await createLockerApiKey(w.db, w.company.id, 'scale', new Date());
    const onB = requester(b.url);
    const onC = requester(c.url);
    for (let i = 0; i < RATE_LIMIT; i++)
      assert.equal((await onB('GET', `${BASE}/country`, { token: fresh.key })).status, 200);
    assert.equal((await onB('GET', `${BASE}/country`, { token: fresh.key })).status, 429, 'B counted its own window');
    assert.equal(
      (await onC('GET', `${BASE}/country`, { token: fresh.key })).status,
      200,
      'C counts its own (docs/security.md, "Several instances")',
    );
    // Cached as valid on C; revoked through the operator on A's storage: C hears of it.
    const revoked = await runOperator(['api-key', 'revoke', '--id', fresh.id], {}, w.cloud.storage);
    assert.equal(revoked.code, 0, revoked.stderr);
    // The credential cache keeps a key 5 s: a refusal sooner is the notification's doing.
    await until(
      'C refuses the revoked key',
      async () => ((await onC('GET', `${BASE}/country`, { token: fresh.key })).status === 401 ? true : undefined),
      4_000,
    );
    assert.equal((await w.cloud.request('GET', `${BASE}/country`, { token: fresh.key })).status, 401);
  });

  it('creates one marketplace parcel for one idempotency key raced on two instances', async () => {
    const world = await seedMarketWorld(w.cloud);
    const key = newKey();
    const bodyOf = marketClient(w.cloud, world).body();
    const headers = { 'x-api-token': world.keys.market, 'Idempotency-Key': key };
    const answers = await Promise.all(
      [requester(b.url), requester(c.url), requester(b.url), requester(c.url)].map((r) =>
        r('POST', '/api/v1/integrations/market-company/parcel/create', { body: bodyOf, headers }),
      ),
    );
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'one parcel, answered alike');
    const rows = await w.db.selectFrom('parcel').select('id').where('id', '=', answers[0]!.body.id).execute();
    assert.equal(rows.length, 1);
  });

  it("exposes each instance's metrics on its own loopback listener", async () => {
    const text = await (await fetch(w.cloud.metricsUrl!)).text();
    assert.match(text, /parcel_locker_lockers_connected 2/);
  });
});
