/**
 * Webhook subscriptions (issue 22) through the real HTTP server and the real sender: signed
 * deliveries a receiver verifies, retries with growing delays after 500s, the dead letter and a
 * replay by id, secret rotation, the event list's cursor, and one send per event with two senders.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { eventually } from '../helpers/receiver.ts';
import { systemClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { createWebhookSender } from '../../cloud/outbound.ts';
import { loadConfig } from '../../cloud/config.ts';
import { startWebhookReceiver, verifyLockerSignature } from '../../scripts/webhook-receiver.ts';
import { DocumentCheck, readDocument } from '../contract/against-document.ts';

const BASE = '/api/v1/integration/company';
const ROOT = path.resolve(import.meta.dirname, '../..');
const SUBS = `${BASE}/webhook-subscriptions`;
const RETRY = { base: 100, window: 1_500 };

interface Hit {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers the statuses it is given, in turn (the last one for ever after). */
async function scriptedReceiver(statuses: number[]) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const status = statuses[Math.min(hits.length, statuses.length - 1)];
      hits.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

for (const dialect of DIALECTS) {
  describe(`webhook subscriptions (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: LockerWorld;
    const closers: Array<() => Promise<unknown>> = [];
    before(async () => {
      cloud = await startTestCloud(dialect, {
        clock: systemClock,
        env: {
          EVENT_POLL_MS: '50',
          WEBHOOK_RETRY_BASE_MS: String(RETRY.base),
          WEBHOOK_RETRY_MAX_DELAY_MS: '5000',
          WEBHOOK_RETRY_WINDOW_MS: String(RETRY.window),
        },
      });
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(async () => {
      for (const c of closers) await c();
      await cloud.stop();
    });

    const as = (key: string) => ({
      get: (path: string) => cloud.request('GET', path, { token: key }),
      post: (path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
        cloud.request('POST', path, { token: key, body, headers }),
      del: (path: string) => cloud.request('DELETE', path, { token: key }),
    });
    const a = () => as(w.companyA.key);
    const b = () => as(w.companyB.key);
    /**
     * Every delivery of the subscription DELIVERED, and this process's sender stopped after its
     * sends in flight (then started again): past this, no send of theirs can still arrive.
     */
    const quiesced = async (subscriptionId: string, n: number) => {
      await eventually(async () => {
        const rows = await cloud.storage.db
          .selectFrom('webhook_delivery')
          .select('state')
          .where('subscriptionId', '=', subscriptionId)
          .execute();
        assert.equal(rows.length, n);
        assert.ok(
          rows.every((r) => r.state === 'DELIVERED'),
          JSON.stringify(rows),
        );
      });
      await cloud.webhookSender.stop();
      cloud.webhookSender.start();
    };
    const subscribe = async (url: string, eventTypes: string[], who = b()) => {
      const res = await who.post(SUBS, { url, eventTypes });
      assert.equal(res.status, 200, res.text);
      return res.body as { id: string; secret: string };
    };
    const createOrder = async (who = b(), sendMessage = false) => {
      const res = await who.post(`${BASE}/order/create`, {
        toUserPhone: '+996555123456',
        postomatId: w.near.id,
        sendMessage,
      });
      assert.equal(res.status, 200, res.text);
      return res.body as { id: string };
    };
    const unsubscribe = async (id: string) => assert.equal((await b().del(`${SUBS}/${id}`)).status, 200);

    it('creates a subscription: the secret is shown once, the list never shows it', async () => {
      const sub = await subscribe('http://127.0.0.1:9/x', ['order.created']);
      assert.match(sub.secret, /^whsec_/);
      const list = await b().get(SUBS);
      assert.equal(list.status, 200);
      const listed = list.body.data.find((s: any) => s.id === sub.id);
      assert.deepEqual(listed.eventTypes, ['order.created']);
      assert.ok(!('secret' in listed));
      assert.equal((await a().get(SUBS)).body.data.length, 0, "another company's subscriptions are not listed");
      await unsubscribe(sub.id);
      assert.ok(!(await b().get(SUBS)).body.data.some((s: any) => s.id === sub.id));
    });

    it('refuses a URL the outbound-target rule refuses, and unknown event types', async () => {
      const refused = await b().post(SUBS, { url: 'http://169.254.169.254/latest', eventTypes: ['order.created'] });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /url/);
      const unknown = await b().post(SUBS, { url: 'http://127.0.0.1:9/x', eventTypes: ['order.teleported'] });
      assert.equal(unknown.status, 400);
    });

    it('delivers signed events that the example receiver verifies: created, then delivered', async () => {
      const seen: any[] = [];
      // The example receiver (scripts/webhook-receiver.ts); it learns the secret from the subscription's answer.
      const secrets: string[] = [];
      const example = await startWebhookReceiver(secrets, (e) => seen.push(e));
      closers.push(() => new Promise((r) => example.close(r)));
      const sub = await subscribe(`http://127.0.0.1:${(example.address() as AddressInfo).port}/events`, [
        'order.created',
        'order.delivered',
      ]);
      secrets.push(sub.secret);
      const order = await createOrder();
      await eventually(() => assert.equal(seen.filter((e) => e.data.object.id === order.id).length, 1));
      await placeOrder(cloud.storage, order.id, w.near.cells[0].id, new Date());
      await eventually(() => assert.equal(seen.filter((e) => e.data.object.id === order.id).length, 2));
      const [created, delivered] = seen.filter((e) => e.data.object.id === order.id);
      assert.equal(created.type, 'order.created');
      assert.equal(delivered.type, 'order.delivered');
      assert.match(created.id, /^evt_/);
      assert.notEqual(created.id, delivered.id);
      assert.ok(Date.parse(created.createdAt) > 0);
      assert.equal(delivered.data.object.cellId, w.near.cells[0].id);
      // As the OpenAPI document's `webhooks.subscriptionEvent` describes them.
      const doc = readDocument();
      const schema = doc.webhooks.subscriptionEvent.post.requestBody.content['application/json'].schema;
      assert.deepEqual(
        [created, delivered].flatMap((e) => new DocumentCheck(doc).schemaProblems(schema, e, e.type)),
        [],
      );
      await unsubscribe(sub.id);
    });

    it('a forged or re-signed body fails verification', () => {
      const body = '{"id":"evt_x"}';
      const t = Math.floor(Date.now() / 1000);
      const header = `t=${t},v1=${'0'.repeat(64)}`;
      assert.equal(verifyLockerSignature(header, body, ['whsec_a']), false);
      assert.equal(verifyLockerSignature(undefined, body, ['whsec_a']), false);
    });

    it('retries after 500s with growing delays, then delivers the same event once it is accepted', async () => {
      const rx = await scriptedReceiver([500, 500, 500, 200]);
      closers.push(rx.close);
      const sub = await subscribe(rx.url, ['order.created']);
      const order = await createOrder();
      await eventually(() => assert.equal(rx.hits.length, 4));
      const ids = rx.hits.map((h) => JSON.parse(h.body).id);
      assert.equal(new Set(ids).size, 1, 'every attempt carries the same event id');
      assert.equal(new Set(rx.hits.map((h) => h.body)).size, 1, 'and the same bytes');
      for (const h of rx.hits)
        assert.ok(verifyLockerSignature(h.headers['locker-signature'] as string, h.body, [sub.secret]));
      const events = await b().get(`${SUBS}/events?limit=100`);
      const event = events.body.data.find((e: any) => e.data.object.id === order.id);
      const log = await eventually(async () => {
        const d = (await b().get(`${SUBS}/events/${event.id}/deliveries`)).body.data;
        assert.equal(d[0].state, 'DELIVERED');
        return d[0];
      });
      assert.equal(log.attempts, 4);
      assert.deepEqual(
        log.attemptLog.map((x: any) => x.httpStatus),
        [500, 500, 500, 200],
      );
      // Planned delays: exponential with equal jitter, so each is at least the one before it.
      const delays = log.attemptLog.slice(0, 3).map((x: any) => Date.parse(x.nextAttemptAt) - Date.parse(x.at));
      delays.forEach((d: number, i: number) => {
        const ceiling = RETRY.base * 2 ** i;
        assert.ok(d >= ceiling / 2 && d <= ceiling, `delay ${i + 1}: ${d} ms within [${ceiling / 2}, ${ceiling}]`);
      });
      assert.ok(delays[0] <= delays[1] && delays[1] <= delays[2], `growing: ${delays}`);
      assert.equal(log.attemptLog[3].nextAttemptAt, null);
      await unsubscribe(sub.id);
    });

    it('dead-letters a delivery when the retry window is spent; a replay by id delivers the same event', async () => {
      const rx = await scriptedReceiver([500]);
      closers.push(rx.close);
      const sub = await subscribe(rx.url, ['order.created']);
      const order = await createOrder();
      const event = await eventually(async () => {
        const e = (await b().get(`${SUBS}/events?limit=100`)).body.data.find((x: any) => x.data.object.id === order.id);
        assert.equal(e.deliveries[0].state, 'DEAD');
        return e;
      }, 15_000);
      const failed = rx.hits.length;
      assert.ok(failed >= 2, 'retried before giving up');
      const dead = (await b().get(`${SUBS}/events/${event.id}/deliveries`)).body.data[0];
      assert.equal(dead.attemptLog.at(-1).nextAttemptAt, null);
      assert.equal(dead.nextAttemptAt, null);

      const ok = await scriptedReceiver([200]);
      closers.push(ok.close);
      const sub2 = await subscribe(ok.url, ['order.created']);
      // Someone else's event id is not found.
      assert.equal((await a().post(`${SUBS}/events/${event.id}/replay`)).status, 404);
      const replay = await b().post(`${SUBS}/events/${event.id}/replay`, { subscriptionId: sub2.id });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.body.data.length, 1);
      await eventually(() => assert.equal(ok.hits.length, 1));
      const body = JSON.parse(ok.hits[0].body);
      assert.equal(body.id, event.id);
      assert.equal(body.type, 'order.created');
      assert.equal(rx.hits.length, failed, 'the dead subscription was not tried again');
      await unsubscribe(sub.id);
      await unsubscribe(sub2.id);
    });

    it('while a secret rotates, both secrets sign; after the overlap only the new one', async () => {
      const rx = await scriptedReceiver([200]);
      closers.push(rx.close);
      const sub = await subscribe(rx.url, ['order.created']);
      const rotated = await b().post(`${SUBS}/${sub.id}/rotate-secret`, { overlapHours: 1 });
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.body.secret, sub.secret);
      assert.ok(rotated.body.secretRotatedUntil);
      await createOrder();
      await eventually(() => assert.equal(rx.hits.length, 1));
      const h = rx.hits[0];
      const header = h.headers['locker-signature'] as string;
      assert.equal(header.match(/v1=/g)?.length, 2);
      assert.ok(verifyLockerSignature(header, h.body, [sub.secret]), 'the old secret verifies');
      assert.ok(verifyLockerSignature(header, h.body, [rotated.body.secret]), 'the new secret verifies');

      const again = await b().post(`${SUBS}/${sub.id}/rotate-secret`, { overlapHours: 0 });
      await createOrder();
      await eventually(() => assert.equal(rx.hits.length, 2));
      const h2 = rx.hits[1];
      assert.ok(verifyLockerSignature(h2.headers['locker-signature'] as string, h2.body, [again.body.secret]));
      assert.ok(
        !verifyLockerSignature(h2.headers['locker-signature'] as string, h2.body, [rotated.body.secret]),
        'the previous secret no longer signs',
      );
      assert.equal(
        (await a().post(`${SUBS}/${sub.id}/rotate-secret`, {})).status,
        404,
        "another company's subscription",
      );
      await unsubscribe(sub.id);
    });

    it('pages through events newest first with a cursor', async () => {
      const sub = await subscribe('http://127.0.0.1:9/unused', ['order.created']);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await createOrder()).id);
      await unsubscribe(sub.id);
      const seen: string[] = [];
      const eventIds: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await b().get(`${SUBS}/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.data.length <= 2);
        seen.push(...page.body.data.map((e: any) => e.data.object.id));
        eventIds.push(...page.body.data.map((e: any) => e.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      assert.equal(new Set(eventIds).size, eventIds.length, 'no event twice');
      const mine = seen.filter((id) => ids.includes(id));
      assert.deepEqual(mine, [...ids].reverse());
    });

    it('two cloud processes on one database send each event once', async () => {
      const rx = await scriptedReceiver([200]);
      closers.push(rx.close);
      const sub = await subscribe(rx.url, ['order.created']);
      const child = spawn(process.execPath, ['--import', 'tsx', 'cloud/main.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          ...cloud.storage.childEnv,
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_URL: cloud.storage.databaseUrl,
          MQTT_PORT: '0',
          WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
          EVENT_POLL_MS: '20',
          RATE_LIMIT_MAX: '0',
          ORDER_EXPIRY_INTERVAL_MS: '0',
          RETENTION_INTERVAL_MS: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        const url = await new Promise<string>((resolve, reject) => {
          child.once('exit', (code) => reject(new Error(`the second cloud exited with ${code}: ${out}`)));
          child.stdout.on('data', () => {
            const line = out.split('\n').find((l) => l.includes('"cloud ready"'));
            if (line) resolve(JSON.parse(line).url);
          });
        });
        // Orders through both processes: each records its events, either may send them.
        const viaChild = (i: number) =>
          fetch(`${url}${BASE}/order/create`, {
            method: 'POST',
            headers: { authorization: `Bearer ${w.companyB.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              toUserPhone: '+996555123456',
              postomatId: w.near.id,
              sendMessage: false,
              customData: `child-${i}`,
            }),
          }).then(async (r) => (await r.json()) as { id: string });
        const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? createOrder() : viaChild(i))));
        await eventually(() => assert.equal(rx.hits.length, orders.length));
        // Both senders stopped, each after its sends in flight: nothing more can arrive.
        child.kill('SIGTERM');
        await exited;
        await quiesced(sub.id, orders.length);
        assert.equal(rx.hits.length, orders.length, 'no event sent twice');
        assert.deepEqual(
          new Set(rx.hits.map((h) => JSON.parse(h.body).data.object.id)),
          new Set(orders.map((o) => o.id)),
        );
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      await unsubscribe(sub.id);
    });

    it('two senders on one database send each event once', async () => {
      const rx = await scriptedReceiver([200]);
      closers.push(rx.close);
      const sub = await subscribe(rx.url, ['order.created']);
      // A second process's sender: its own connection to the same database.
      const other = await openStorage(cloud.storage.databaseUrl);
      const config = loadConfig({
        DATABASE_URL: cloud.storage.databaseUrl,
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        EVENT_POLL_MS: '5',
      });
      const second = createWebhookSender(config, other, systemClock, silentLogger);
      second.start();
      try {
        const orders = await Promise.all(Array.from({ length: 12 }, () => createOrder()));
        await eventually(() => assert.equal(rx.hits.length, orders.length));
        await second.stop();
        await quiesced(sub.id, orders.length);
        const ids = rx.hits.map((h) => JSON.parse(h.body).data.object.id);
        assert.equal(rx.hits.length, orders.length, 'no event sent twice');
        assert.deepEqual(new Set(ids), new Set(orders.map((o) => o.id)));
      } finally {
        await second.stop();
        await other.close();
      }
      await unsubscribe(sub.id);
    });
  });
}

describe('webhook subscriptions with WEBHOOKS_ENABLED=false', () => {
  it('records the delivery and leaves it PENDING, unsent', async () => {
    const cloud = await startTestCloud(DIALECTS[0], {
      clock: systemClock,
      env: { WEBHOOKS_ENABLED: 'false', EVENT_POLL_MS: '20' },
    });
    const rx = await scriptedReceiver([200]);
    try {
      const w = await seedLockerWorld(cloud.storage.db);
      const sub = await cloud.request('POST', SUBS, {
        token: w.companyB.key,
        body: { url: rx.url, eventTypes: ['order.created'] },
      });
      assert.equal(sub.status, 200);
      const order = await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyB.key,
        body: { toUserPhone: '+996555123456', postomatId: w.near.id, sendMessage: false },
      });
      assert.equal(order.status, 200);
      // Several polls of a running sender would have sent it by now.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(rx.hits.length, 0);
      const events = await cloud.request('GET', `${SUBS}/events`, { token: w.companyB.key });
      assert.deepEqual(
        events.body.data.map((e: any) => e.deliveries.map((d: any) => d.state)),
        [['PENDING']],
      );
    } finally {
      await cloud.stop();
      await rx.close();
    }
  });
});
