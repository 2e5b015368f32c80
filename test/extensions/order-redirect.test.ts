/**
 * Redirect of an order not yet placed (issue 22) through the real path with two simulated
 * lockers: HTTP → cloud → MQTT → agents → simulated boards. After the redirect the old DOWN code
 * says "Wrong code" at the first locker and the new one opens a cell at the second; the
 * recipient is told the new locker and code; refusals are clear.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
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
import { untilStatus } from '../sync/scenarios.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { DEFAULT_PENDING_ORDERS_PER_LOCKER } from '../../cloud/domain/order-limits.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const MIN_PENDING = 100;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] redirect an order to another locker`, () => {
    let w: SyncWorld;
    let one: CloudLocker;
    let two: CloudLocker;
    let sim1: SimLocker;
    let sim2: SimLocker;
    let sms: Receiver;
    let subscriptionId: string;
    before(async () => {
      sms = await startReceiver();
      w = await startSyncWorld(dialect, {
        env: {
          SMS_PROVIDER: 'http',
          SMS_GATEWAY_URL: `${sms.url}/send`,
          PENDING_ORDERS_PER_LOCKER: String(MIN_PENDING),
        },
      });
      one = await w.newLocker('First Locker');
      two = await w.newLocker('Second Locker');
      sim1 = await w.startAgent(one);
      sim2 = await w.startAgent(two);
      await untilOnline(w, one.id);
      await untilOnline(w, two.id);
      for (const sim of [sim1, sim2]) {
        await until('every cell read', async () =>
          (await sim.agent.cells()).cells.every((c) => c.lockClosed !== null) ? true : undefined,
        );
      }
      // Port 9 refuses: the event list is what these tests read.
      const sub = await post('/webhook-subscriptions', {
        url: 'http://127.0.0.1:9/hook',
        eventTypes: ['order.redirected'],
      });
      assert.equal(sub.status, 200, sub.text);
      subscriptionId = sub.body.id;
    });
    after(async () => {
      await w.close();
      await sms.close();
    });

    function post(path: string, body?: unknown, key?: string) {
      return w.cloud.request('POST', `${BASE}${path}`, {
        token: w.company.key,
        body,
        headers: key ? { 'Idempotency-Key': key } : {},
      });
    }
    const redirect = (orderId: string, postomatId: string, key?: string) =>
      post(`/order/${orderId}/redirect`, { postomatId }, key);
    const eventsOf = async (orderId: string) =>
      (
        (await w.cloud.request('GET', `${BASE}/webhook-subscriptions/events?limit=100`, { token: w.company.key })).body
          .data as any[]
      ).filter((e) => e.data.object.id === orderId);
    const smsTexts = () => sms.received.map((r) => JSON.parse(r.body).text as string);

    it('new codes at the new locker: the old DOWN code says "Wrong code" at the first, the new one opens a cell at the second', async () => {
      const order = await w.createOrder(one.id, { sendMessage: true });
      const old = await codesOf(w, order.id);
      await untilAgent(sim1, order.id, 'order known at the first locker', (o) => o?.codes.DOWN === old.DOWN);

      const res = await redirect(order.id, two.id, 'redirect-1');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, order.id);
      assert.equal(res.body.postomatId, two.id);
      assert.equal(res.body.isActive, true);
      const fresh = await codesOf(w, order.id);
      for (const type of ['DOWN', 'UP', 'SUBTRACT'] as const)
        assert.notEqual(fresh[type], old[type], `a new ${type} code`);

      await untilAgent(sim1, order.id, 'order dropped at the first locker', (o) => o === undefined);
      await untilAgent(
        sim2,
        order.id,
        'order known at the second locker',
        (o) => o?.codes.DOWN === fresh.DOWN && o.codes.UP === fresh.UP,
      );
      const from = sim1.displayLines.length;
      await sim1.typeCode(old.DOWN);
      assert.match(await waitForDisplay(sim1, /Wrong code/, from), /Wrong code/);

      // The recipient hears of the new locker and its code.
      const told = await until('the redirect SMS', () => smsTexts().find((t) => t.includes('Second Locker')));
      assert.match(told, new RegExp(`Pickup code once it is there: ${fresh.UP}`));
      assert.deepEqual(
        (await eventsOf(order.id)).map((e) => e.type),
        ['order.redirected'],
      );
      const event = (await eventsOf(order.id))[0];
      assert.equal(event.data.object.postomatId, two.id, 'the event carries the order at its new locker');
      assert.equal(event.deliveries[0].subscriptionId, subscriptionId);

      // The same key and body: the same answer, nothing new; another body with it: refused.
      const again = await redirect(order.id, two.id, 'redirect-1');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, res.body);
      const reused = await redirect(order.id, one.id, 'redirect-1');
      assert.equal(reused.status, 409);
      assert.equal(reused.body.message, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal((await orderRow(w.db, order.id)).postomatId, two.id);
      assert.equal((await eventsOf(order.id)).length, 1);

      const cell = await typeAndWaitOpen(sim2, fresh.DOWN);
      await useCell(sim2, cell, true);
      await untilStatus(w, order.id, 'DELIVERED');
      const rows = await w.db
        .selectFrom('outbox_event')
        .select(['kind', 'event'])
        .where('orderId', '=', order.id)
        .where('kind', '=', 'SMS')
        .orderBy('createdAt')
        .execute();
      assert.deepEqual(
        rows.map((e) => e.event),
        ['REDIRECTED', 'PICKUP_CODE'],
      );

      const placed = await redirect(order.id, one.id);
      assert.equal(placed.status, 409);
      assert.equal(placed.body.message, 'ORDER_ALREADY_PLACED');
      assert.equal(await typeAndWaitOpen(sim2, fresh.UP), cell);
      await useCell(sim2, cell, false);
      await untilStatus(w, order.id, 'COMPLETED');
    });

    it('redirect while the first locker is offline: its codes are withdrawn when it reconnects', async () => {
      const order = await w.createOrder(one.id);
      const old = await codesOf(w, order.id);
      await untilAgent(sim1, order.id, 'order known', (o) => o?.codes.DOWN === old.DOWN);
      await sim1.agent.setNetwork(false);
      await untilOnline(w, one.id, false);
      assert.equal((await redirect(order.id, two.id)).status, 200);
      const fresh = await codesOf(w, order.id);
      await untilAgent(sim2, order.id, 'order known at the second locker', (o) => o?.codes.DOWN === fresh.DOWN);
      await sim1.agent.setNetwork(true);
      await untilAgent(sim1, order.id, 'order dropped after reconnecting', (o) => o === undefined);
      const from = sim1.displayLines.length;
      await sim1.typeCode(old.DOWN);
      assert.match(await waitForDisplay(sim1, /Wrong code/, from), /Wrong code/);
    });

    it('concurrent retries with one Idempotency-Key: one redirect, one event, the same answer', async () => {
      const order = await w.createOrder(one.id);
      const answers = await Promise.all([1, 2, 3].map(() => redirect(order.id, two.id, `concurrent-${order.id}`)));
      for (const a of answers) assert.equal(a.status, 200, a.text);
      for (const a of answers.slice(1)) assert.deepEqual(a.body, answers[0].body);
      assert.equal((await eventsOf(order.id)).length, 1);
      const codes = await codesOf(w, order.id);
      await untilAgent(sim2, order.id, 'order known at the second locker', (o) => o?.codes.DOWN === codes.DOWN);
    });

    it('its own locker is no change: the order as it is, the same codes, no event', async () => {
      const order = await w.createOrder(one.id);
      const codes = await codesOf(w, order.id);
      const res = await redirect(order.id, one.id);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.postomatId, one.id);
      assert.equal(res.body.updatedAt, order.updatedAt);
      assert.deepEqual(await codesOf(w, order.id), codes);
      assert.deepEqual(await eventsOf(order.id), []);
    });

    it("refusals: an unknown or inactive locker, a cancelled order, another company's order, a bad body", async () => {
      const order = await w.createOrder(one.id);
      const unknown = await redirect(order.id, 'z'.repeat(24));
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.message, 'POSTOMAT_NOT_FOUND');
      const closed = await w.newLocker('Closed Locker');
      await w.db.updateTable('postomat').set({ isActive: 0 }).where('id', '=', closed.id).execute();
      const inactive = await redirect(order.id, closed.id);
      assert.equal(inactive.status, 404);
      assert.equal(inactive.body.message, 'POSTOMAT_NOT_FOUND');
      assert.equal((await orderRow(w.db, order.id)).postomatId, one.id, 'nothing moved');

      const c = await createLockerCompany(w.db, { title: 'Other Co', defaultDays: 2 }, new Date());
      const key = (await createLockerApiKey(w.db, c.id, undefined, new Date())).key;
      const other = await w.cloud.request('POST', `${BASE}/order/${order.id}/redirect`, {
        token: key,
        body: { postomatId: two.id },
      });
      assert.equal(other.status, 404);
      assert.equal(other.body.message, 'ORDER_NOT_FOUND');
      assert.equal((await orderRow(w.db, order.id)).postomatId, one.id);

      assert.equal((await post(`/order/${order.id}/cancel`)).status, 200);
      const cancelled = await redirect(order.id, two.id);
      assert.equal(cancelled.status, 404);
      assert.equal(cancelled.body.message, 'ORDER_NOT_FOUND');

      const bad = await post(`/order/${order.id}/redirect`, { postomatId: 'not an id' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'FST_ERR_VALIDATION');
      const missing = await post(`/order/${order.id}/redirect`, {});
      assert.equal(missing.status, 400);
    });

    it("the company's pending orders at the target are bounded as for a new order", async () => {
      assert.ok(MIN_PENDING < DEFAULT_PENDING_ORDERS_PER_LOCKER, 'the world lowers the bound');
      const full = await w.newLocker('Busy Locker');
      for (let i = 0; i < MIN_PENDING; i += 20) {
        await Promise.all(Array.from({ length: 20 }, () => w.createOrder(full.id)));
      }
      const order = await w.createOrder(one.id);
      const res = await redirect(order.id, full.id);
      assert.equal(res.status, 409);
      assert.equal(res.body.message, 'TOO_MANY_PENDING_ORDERS');
      assert.equal((await orderRow(w.db, order.id)).postomatId, one.id);
    });
  });
}
