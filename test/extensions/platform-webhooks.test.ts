/**
 * Webhook subscriptions of platform companies (issue 22) through the real HTTP server and the
 * real sender: a locker order's placement and collection reach the subscribed platform company
 * signed (the example receiver verifies), retried after 500s, replayed by id; another platform
 * company sees nothing of them (404), a user who is not an administrator is refused
 * (403 ONLY_FOR_ADMIN); the spec's one-attempt webhooks go on beside them unchanged.
 * Also: migration 027 keeps the Locker API companies' subscriptions and deliveries.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { DIALECTS, openTestStorage } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { finishOrder, placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { eventually, startReceiver, type Receiver } from '../helpers/receiver.ts';
import { systemClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { createWebhookSender } from '../../cloud/outbound.ts';
import { loadConfig } from '../../cloud/config.ts';
import { setLockerAccess } from '../../cloud/services/platform/companies.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { createWebhook } from '../../cloud/services/platform/webhooks.ts';
import { MIGRATIONS, migrateToLatest } from '../../cloud/storage/migrations/index.ts';
import { startWebhookReceiver, verifyLockerSignature } from '../../scripts/webhook-receiver.ts';
import { DocumentCheck, readDocument } from '../contract/against-document.ts';

const LOCKER = '/api/v1/integration/company';
const SUBS = '/api/v1/logistic-company/webhook-subscriptions';

for (const dialect of DIALECTS) {
  describe(`platform webhook subscriptions (${dialect.name})`, () => {
    let cloud: TestCloud;
    let lw: LockerWorld;
    let w: PlatformWorld;
    let spec: Receiver;
    const tokens: Record<'admin' | 'clerk' | 'otherAdmin', string> = { admin: '', clerk: '', otherAdmin: '' };
    const closers: Array<() => Promise<unknown>> = [];
    before(async () => {
      spec = await startReceiver();
      cloud = await startTestCloud(dialect, {
        clock: systemClock,
        env: {
          EVENT_POLL_MS: '50',
          WEBHOOK_RETRY_BASE_MS: '100',
          WEBHOOK_RETRY_MAX_DELAY_MS: '2000',
          WEBHOOK_RETRY_WINDOW_MS: '60000',
        },
      });
      lw = await seedLockerWorld(cloud.storage.db);
      w = await seedPlatformWorld(cloud.storage.db);
      // Silk Road's locker orders are company A's (the link of the spec's webhooks too).
      await setLockerAccess(
        cloud.storage.db,
        w.logist.id,
        { lockerCompanyId: lw.companyA.id, enabled: true },
        new Date(),
      );
      await createWebhook(
        cloud.storage.db,
        w.logist.id,
        { type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT', url: `${spec.url}/placed` },
        new Date(),
      );
      const login = async (email: string) =>
        (await cloud.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body
          .accessToken as string;
      tokens.admin = await login('admin@silkroad.example');
      tokens.clerk = await login('clerk@silkroad.example');
      tokens.otherAdmin = await login('admin@osh.example');
    });
    after(async () => {
      for (const c of closers) await c();
      await cloud.stop();
      await spec.close();
    });

    const as = (who: keyof typeof tokens) => ({
      get: (path: string) => cloud.request('GET', path, { token: tokens[who] }),
      post: (path: string, body: unknown = {}) => cloud.request('POST', path, { token: tokens[who], body }),
      del: (path: string) => cloud.request('DELETE', path, { token: tokens[who] }),
    });
    const subscribe = async (url: string, eventTypes: string[], who: keyof typeof tokens = 'admin') => {
      const res = await as(who).post(SUBS, { url, eventTypes });
      assert.equal(res.status, 200, res.text);
      return res.body as { id: string; secret: string; eventTypes: string[] };
    };
    const unsubscribe = async (id: string) => assert.equal((await as('admin').del(`${SUBS}/${id}`)).status, 200);
    const createOrder = async (key = lw.companyA.key) => {
      const res = await cloud.request('POST', `${LOCKER}/order/create`, {
        token: key,
        body: { toUserPhone: '+996555123456', postomatId: lw.near.id, sendMessage: false },
      });
      assert.equal(res.status, 200, res.text);
      return res.body as { id: string };
    };
    let cell = 0;
    const place = (orderId: string) => placeOrder(cloud.storage, orderId, lw.near.cells[cell++ % 3].id, new Date());
    const eventOf = async (who: keyof typeof tokens, orderId: string, type: string) => {
      const page = await as(who).get(`${SUBS}/events?limit=100`);
      assert.equal(page.status, 200, page.text);
      return page.body.data.find((e: any) => e.data.object.postomatOrderId === orderId && e.type === type);
    };

    it("a placement and a collection reach the subscribed company signed, verified by the example receiver; the spec's webhook goes out unchanged", async () => {
      const seen: any[] = [];
      const secrets: string[] = [];
      const example = await startWebhookReceiver(secrets, (e) => seen.push(e));
      closers.push(() => new Promise((r) => example.close(r)));
      const sub = await subscribe(`http://127.0.0.1:${(example.address() as AddressInfo).port}/events`, [
        'parcel.delivered_to_postomat',
        'parcel.transferred_to_client',
      ]);
      assert.match(sub.secret, /^whsec_/);
      secrets.push(sub.secret);
      const listed = (await as('admin').get(SUBS)).body.data;
      assert.deepEqual(
        listed.map((s: any) => s.id),
        [sub.id],
      );
      assert.ok(!('secret' in listed[0]), 'the list never shows the secret');

      const order = await createOrder();
      await place(order.id);
      await eventually(() => assert.equal(seen.filter((e) => e.data.object.postomatOrderId === order.id).length, 1));
      await finishOrder(cloud.storage, order.id, 'COMPLETED', new Date());
      await eventually(() => assert.equal(seen.filter((e) => e.data.object.postomatOrderId === order.id).length, 2));
      const [placed, collected] = seen.filter((e) => e.data.object.postomatOrderId === order.id);
      assert.equal(placed.type, 'parcel.delivered_to_postomat');
      assert.deepEqual(placed.data.object, {
        postomatOrderId: order.id,
        status: 0,
        subtype: 'DELIVERED_TO_POSTOMAT',
        postomatId: lw.near.id,
        parcels: [],
      });
      assert.equal(collected.type, 'parcel.transferred_to_client');
      assert.equal(collected.data.object.status, 1);
      assert.match(placed.id, /^evt_/);
      assert.notEqual(placed.id, collected.id);
      // As the OpenAPI document describes them.
      const doc = readDocument();
      const schema = doc.webhooks.platformSubscriptionEvent.post.requestBody.content['application/json'].schema;
      assert.deepEqual(
        [placed, collected].flatMap((e) => new DocumentCheck(doc).schemaProblems(schema, e, e.type)),
        [],
      );
      // The spec's one-attempt webhook: its own body, no signature.
      const spec1 = await eventually(() => {
        const hit = spec.received.find((r) => r.body.includes(order.id));
        assert.ok(hit);
        return hit;
      });
      assert.deepEqual(JSON.parse(spec1.body), { postomatOrderId: order.id, status: 0 });
      assert.equal(spec1.headers['locker-signature'], undefined);
      await unsubscribe(sub.id);
    });

    it('retries after 500s with the same signed event, then delivers; the attempts are readable', async () => {
      const rx = await startReceiver({ status: 500 });
      closers.push(rx.close);
      const sub = await subscribe(`${rx.url}/hook`, ['parcel.delivered_to_postomat']);
      const order = await createOrder();
      await place(order.id);
      await eventually(() => assert.ok(rx.received.length >= 3, `${rx.received.length} attempts`));
      rx.behave({ status: 200 });
      const event = await eventually(async () => {
        const e = await eventOf('admin', order.id, 'parcel.delivered_to_postomat');
        assert.equal(e?.deliveries[0].state, 'DELIVERED');
        return e;
      });
      const hits = rx.received.filter((h) => h.body.includes(order.id));
      assert.equal(new Set(hits.map((h) => h.body)).size, 1, 'every attempt sends the same bytes');
      for (const h of hits)
        assert.ok(verifyLockerSignature(h.headers['locker-signature'] as string, h.body, [sub.secret]));
      const log = (await as('admin').get(`${SUBS}/events/${event.id}/deliveries`)).body.data[0];
      assert.equal(log.attempts, hits.length);
      assert.deepEqual(
        log.attemptLog.map((a: any) => a.httpStatus),
        [...hits.slice(0, -1).map(() => 500), 200],
      );
      assert.ok(
        log.attemptLog.slice(0, -1).every((a: any) => Date.parse(a.nextAttemptAt) > Date.parse(a.at)),
        'each failure planned a later attempt',
      );
      await unsubscribe(sub.id);
    });

    it('replays an event by id; another platform company sees nothing of it (404), and the Locker API company neither', async () => {
      const first = await startReceiver({ status: 200 });
      closers.push(first.close);
      const sub = await subscribe(`${first.url}/a`, ['parcel.delivered_to_postomat']);
      const order = await createOrder();
      await place(order.id);
      await eventually(() => assert.equal(first.received.filter((h) => h.body.includes(order.id)).length, 1));
      const event = await eventOf('admin', order.id, 'parcel.delivered_to_postomat');

      // Osh Express's administrator: an empty world.
      const other = as('otherAdmin');
      assert.deepEqual((await other.get(SUBS)).body.data, []);
      assert.equal((await other.get(`${SUBS}/events?limit=100`)).body.data.length, 0);
      for (const res of [
        await other.get(`${SUBS}/events/${event.id}/deliveries`),
        await other.post(`${SUBS}/events/${event.id}/replay`),
        await other.post(`${SUBS}/${sub.id}/rotate-secret`, {}),
        await other.del(`${SUBS}/${sub.id}`),
      ]) {
        assert.equal(res.status, 404, res.text);
        assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'statusCode']);
      }
      // The Locker API company behind the link has its own subscriptions, not the platform's.
      const lockerSide = await cloud.request('GET', `${LOCKER}/webhook-subscriptions/events/${event.id}/deliveries`, {
        token: lw.companyA.key,
      });
      assert.equal(lockerSide.status, 404);

      const replay = await as('admin').post(`${SUBS}/events/${event.id}/replay`, { subscriptionId: sub.id });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.body.data.length, 1);
      await eventually(() => assert.equal(first.received.filter((h) => h.body.includes(order.id)).length, 2));
      const [original, again] = first.received.filter((h) => h.body.includes(order.id));
      assert.equal(again.body, original.body, 'the same event, byte for byte');
      assert.ok(verifyLockerSignature(again.headers['locker-signature'] as string, again.body, [sub.secret]));
      await unsubscribe(sub.id);
    });

    it('a company hears of the orders delivering its parcels, naming only its own parcels', async () => {
      const rx = await startReceiver({ status: 200 });
      closers.push(rx.close);
      const mine = await subscribe(`${rx.url}/osh`, ['parcel.delivered_to_postomat'], 'otherAdmin');
      // Company B is linked to nobody: only the parcel ties its order to Osh Express.
      const order = await createOrder(lw.companyB.key);
      const parcel = await createParcel(
        cloud.storage.db,
        {
          companyId: w.otherLogist.id,
          weight: 1,
          currency: 'KGS',
          deliveryMethod: 'POSTOMAT',
          postomatId: lw.near.id,
          postomatOrderId: order.id,
        },
        new Date(),
      );
      await place(order.id);
      const event = await eventually(async () => {
        const e = await eventOf('otherAdmin', order.id, 'parcel.delivered_to_postomat');
        assert.equal(e?.deliveries[0].state, 'DELIVERED');
        return e;
      });
      assert.deepEqual(event.data.object.parcels, [{ id: parcel.id, trackCode: parcel.trackCode }]);
      assert.equal(
        await eventOf('admin', order.id, 'parcel.delivered_to_postomat'),
        undefined,
        'Silk Road is not linked to company B',
      );
      assert.equal((await as('otherAdmin').del(`${SUBS}/${mine.id}`)).status, 200);
    });

    it('refuses a user who is not an administrator (403 ONLY_FOR_ADMIN), a missing token (401), and bad input (400)', async () => {
      for (const res of [
        await as('clerk').get(SUBS),
        await as('clerk').post(SUBS, { url: 'http://127.0.0.1:9/x', eventTypes: ['parcel.delivered_to_postomat'] }),
      ]) {
        assert.equal(res.status, 403);
        assert.equal(res.body.message, 'ONLY_FOR_ADMIN');
      }
      assert.equal((await cloud.request('GET', SUBS)).status, 401);
      const lockerTypes = await as('admin').post(SUBS, { url: 'http://127.0.0.1:9/x', eventTypes: ['order.created'] });
      assert.equal(lockerTypes.status, 400, "the Locker API's event types are not the platform's");
      const refused = await as('admin').post(SUBS, {
        url: 'http://169.254.169.254/latest',
        eventTypes: ['parcel.delivered_to_postomat'],
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /url/);
    });

    it('two senders on one database send each platform event once', async () => {
      const rx = await startReceiver({ status: 200 });
      closers.push(rx.close);
      const sub = await subscribe(`${rx.url}/once`, ['parcel.delivered_to_postomat']);
      // A second process's sender: its own connection to the same database.
      const other = await openStorage(cloud.storage.databaseUrl);
      const second = createWebhookSender(
        loadConfig({ DATABASE_URL: cloud.storage.databaseUrl, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', EVENT_POLL_MS: '5' }),
        other,
        systemClock,
        silentLogger,
      );
      second.start();
      try {
        const orders = [];
        for (let i = 0; i < 6; i++) orders.push(await createOrder());
        await Promise.all(
          orders.map((o, i) =>
            placeOrder(cloud.storage, o.id, [lw.near, lw.mid][i % 2].cells[Math.floor(i / 2)].id, new Date()),
          ),
        );
        await eventually(() => assert.equal(rx.received.length, orders.length));
        // Every delivery settled and both senders stopped after their sends in flight: nothing more can arrive.
        await eventually(async () => {
          const rows = await cloud.storage.db
            .selectFrom('webhook_delivery')
            .select('state')
            .where('subscriptionId', '=', sub.id)
            .execute();
          assert.equal(rows.length, orders.length);
          assert.ok(
            rows.every((r) => r.state === 'DELIVERED'),
            JSON.stringify(rows),
          );
        });
        await second.stop();
        await cloud.webhookSender.stop();
        cloud.webhookSender.start();
        assert.equal(rx.received.length, orders.length, 'no event sent twice');
        assert.deepEqual(
          new Set(rx.received.map((h) => JSON.parse(h.body).data.object.postomatOrderId)),
          new Set(orders.map((o) => o.id)),
        );
      } finally {
        await second.stop();
        await other.close();
      }
      await unsubscribe(sub.id);
    });

    it('rotates the secret: both sign during the overlap', async () => {
      const rx = await startReceiver({ status: 200 });
      closers.push(rx.close);
      const sub = await subscribe(`${rx.url}/rot`, ['parcel.delivered_to_postomat']);
      const rotated = await as('admin').post(`${SUBS}/${sub.id}/rotate-secret`, { overlapHours: 1 });
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.body.secret, sub.secret);
      const order = await createOrder();
      await place(order.id);
      const hit = await eventually(() => {
        const h = rx.received.find((r) => r.body.includes(order.id));
        assert.ok(h);
        return h;
      });
      const header = hit.headers['locker-signature'] as string;
      assert.ok(
        verifyLockerSignature(header, hit.body, [sub.secret]) &&
          verifyLockerSignature(header, hit.body, [rotated.body.secret]),
      );
      await unsubscribe(sub.id);
    });
  });

  describe(`migration 027 keeps existing subscriptions (${dialect.name})`, () => {
    it('a Locker API subscription and its delivery survive, still linked', async () => {
      const storage = await openTestStorage(dialect, { migrate: false });
      try {
        const db = storage.db;
        const upTo023 = MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '023_api_hygiene') + 1);
        await migrateToLatest(db, dialect.name, upTo023);
        const lw = await seedLockerWorld(db);
        const at = new Date().toISOString();
        await (db as any)
          .insertInto('webhook_subscription')
          .values({
            id: 'sub1',
            companyId: lw.companyB.id,
            url: 'https://example.com/h',
            eventTypes: '["order.created"]',
            secret: 'whsec_x',
            createdAt: at,
            updatedAt: at,
          })
          .execute();
        await (db as any)
          .insertInto('webhook_delivery')
          .values({
            id: 'd1',
            eventId: 'evt_1',
            subscriptionId: 'sub1',
            state: 'PENDING',
            attempts: 0,
            nextAttemptAt: at,
            createdAt: at,
          })
          .execute();
        await (db as any)
          .insertInto('webhook_event')
          .values({
            eventId: 'evt_1',
            companyId: lw.companyB.id,
            type: 'order.created',
            orderId: null,
            body: '{}',
            createdAt: at,
          })
          .execute();
        await migrateToLatest(db, dialect.name);
        const sub = await db.selectFrom('webhook_subscription').selectAll().executeTakeFirstOrThrow();
        assert.equal(sub.ownerKind, 'LOCKER');
        assert.equal(sub.companyId, lw.companyB.id);
        assert.equal(sub.secret, 'whsec_x');
        const event = await db.selectFrom('webhook_event').selectAll().executeTakeFirstOrThrow();
        assert.equal(event.ownerKind, 'LOCKER');
        assert.equal(
          (await db.selectFrom('webhook_delivery').selectAll().executeTakeFirstOrThrow()).subscriptionId,
          'sub1',
        );
        // Deliveries still point at subscriptions: one naming none is refused.
        await assert.rejects(
          db
            .insertInto('webhook_delivery')
            .values({
              id: 'd2',
              eventId: 'evt_1',
              subscriptionId: 'nope',
              state: 'PENDING',
              attempts: 0,
              nextAttemptAt: at,
              claimedBy: null,
              claimedUntil: null,
              lastStatus: null,
              lastError: null,
              createdAt: at,
              finishedAt: null,
            })
            .execute(),
        );
        // A platform company's id is no locker company's: no foreign key stands in the way.
        await db
          .insertInto('webhook_subscription')
          .values({
            id: 'sub2',
            ownerKind: 'PLATFORM',
            companyId: '7',
            url: 'https://example.com/p',
            eventTypes: '[]',
            secret: 'whsec_y',
            previousSecret: null,
            previousSecretUntil: null,
            createdAt: at,
            updatedAt: at,
            deletedAt: null,
          })
          .execute();
      } finally {
        await storage.destroy();
      }
    });
  });
}
