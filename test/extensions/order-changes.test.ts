/**
 * Changes after creation (issue 22) through the real path: HTTP → cloud → MQTT → agent →
 * simulated boards. A cancelled order's DOWN code says "Wrong code" at the keypad; a placed
 * order cannot be cancelled; a placed order's storage period is extended, and its recipient is
 * told again.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import {
  BASE,
  agentOrder,
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
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const DAY = 86_400_000;
const agentKnows = (sim: SimLocker, id: string) => agentOrder(sim, id) !== undefined;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] cancel and extend an order`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    let sms: Receiver;
    before(async () => {
      sms = await startReceiver();
      w = await startSyncWorld(dialect, { env: { SMS_PROVIDER: 'http', SMS_GATEWAY_URL: `${sms.url}/send` } });
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
      await until('every cell read', async () =>
        (await sim.agent.cells()).cells.every((c) => c.lockClosed !== null) ? true : undefined,
      );
    });
    after(async () => {
      await w.close();
      await sms.close();
    });

    const post = (path: string, body?: unknown) =>
      w.cloud.request('POST', `${BASE}${path}`, { token: w.company.key, body });

    async function place(orderId: string): Promise<string> {
      const { DOWN } = await codesOf(w, orderId);
      await untilAgent(sim, orderId, 'order known', (o) => o?.codes.DOWN === DOWN);
      const cell = await typeAndWaitOpen(sim, DOWN);
      await useCell(sim, cell, true);
      await untilStatus(w, orderId, 'DELIVERED');
      return cell;
    }

    it('cancel before placement withdraws the codes from the locker: the DOWN code says "Wrong code"', async () => {
      // Port 9 refuses: the event list is what this test reads.
      const sub = await post('/webhook-subscriptions', {
        url: 'http://127.0.0.1:9/hook',
        eventTypes: ['order.cancelled'],
      });
      assert.equal(sub.status, 200, sub.text);
      const order = await w.createOrder(locker.id);
      const { DOWN } = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === DOWN);
      const res = await post(`/order/${order.id}/cancel`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, order.id);
      assert.equal(res.body.isActive, false);
      await untilAgent(sim, order.id, 'order dropped', (o) => o === undefined);
      const from = sim.displayLines.length;
      await sim.typeCode(DOWN);
      assert.match(await waitForDisplay(sim, /Wrong code/, from), /Wrong code/);
      const row = await orderRow(w.db, order.id);
      assert.ok(row.cancelledAt);
      const listed = await w.cloud.request('GET', `${BASE}/order/list?pageSize=100`, { token: w.company.key });
      assert.ok(!listed.body.data.some((o: any) => o.id === order.id), 'out of the list');
      const again = await post(`/order/${order.id}/cancel`);
      assert.equal(again.status, 200, 'a second cancel answers the cancelled order');
      assert.equal(again.body.id, order.id);
      const events = await w.cloud.request('GET', `${BASE}/webhook-subscriptions/events`, { token: w.company.key });
      assert.deepEqual(
        events.body.data.filter((e: any) => e.data.object.id === order.id).map((e: any) => e.type),
        ['order.cancelled'],
        'one event, for the one cancel',
      );
      await w.cloud.request('DELETE', `${BASE}/webhook-subscriptions/${sub.body.id}`, { token: w.company.key });
    });

    it('cancel while the locker is offline: the codes are withdrawn when it reconnects', async () => {
      const order = await w.createOrder(locker.id);
      const { DOWN } = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === DOWN);
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      assert.equal((await post(`/order/${order.id}/cancel`)).status, 200);
      assert.ok(agentKnows(sim, order.id), 'the offline locker still holds it');
      await sim.agent.setNetwork(true);
      await untilAgent(sim, order.id, 'order dropped after reconnecting', (o) => o === undefined);
      const from = sim.displayLines.length;
      await sim.typeCode(DOWN);
      assert.match(await waitForDisplay(sim, /Wrong code/, from), /Wrong code/);
    });

    it('cancel after placement is 409 ORDER_ALREADY_PLACED, and the parcel stays collectable', async () => {
      const order = await w.createOrder(locker.id);
      const cell = await place(order.id);
      const res = await post(`/order/${order.id}/cancel`);
      assert.equal(res.status, 409);
      assert.equal(res.body.message, 'ORDER_ALREADY_PLACED');
      assert.equal((await orderRow(w.db, order.id)).isActive, 1);
      const { UP } = await codesOf(w, order.id);
      assert.equal(await typeAndWaitOpen(sim, UP), cell);
      await useCell(sim, cell, false);
      await untilStatus(w, order.id, 'COMPLETED');
    });

    it("extend moves a placed order's storage end at the cloud and the locker, and sends the recipient's SMS again", async () => {
      const order = await w.createOrder(locker.id, { sendMessage: true });
      const notYet = await post(`/order/${order.id}/extend`, { days: 2 });
      assert.equal(notYet.status, 409);
      assert.equal(notYet.body.message, 'ORDER_NOT_DELIVERED');
      const cell = await place(order.id);
      const before = await orderRow(w.db, order.id);
      await untilAgent(
        sim,
        order.id,
        'the storage end of the placed order',
        (o) => o?.storageEnd === before.endDateTime,
      );
      const oldEnd = `until ${before.endDateTime!.slice(0, 16).replace('T', ' ')} UTC`;
      // The placement SMS is read at sending time: wait for it, so it names the old date.
      await until(
        'the placement SMS',
        () => sms.received.some((r) => JSON.parse(r.body).text.includes(oldEnd)) || undefined,
      );
      const res = await post(`/order/${order.id}/extend`, { days: 3 });
      assert.equal(res.status, 200, res.text);
      assert.equal(Date.parse(res.body.endDateTime) - Date.parse(before.endDateTime!), 3 * DAY);
      assert.equal(res.body.days, before.days + 3);
      const read = await w.order(order.id);
      assert.equal(read.endDateTime, res.body.endDateTime);
      // The new end reaches the locker through the sync, and its screen names it at removal.
      await untilAgent(sim, order.id, 'the new storage end', (o) => o?.storageEnd === res.body.endDateTime);
      const rows = await w.db
        .selectFrom('outbox_event')
        .select(['kind', 'event'])
        .where('orderId', '=', order.id)
        .orderBy('createdAt')
        .execute();
      assert.deepEqual(
        rows.map((e) => `${e.kind}:${e.event}`),
        ['SMS:PICKUP_CODE', 'SMS:STORAGE_EXTENDED'],
      );
      // The recipient's second SMS names the new end date.
      const newEnd = `until ${res.body.endDateTime.slice(0, 16).replace('T', ' ')} UTC`;
      const texts = await until('the SMS with the new end date', () => {
        const t = sms.received.map((r) => JSON.parse(r.body).text as string).filter((x) => x.includes(newEnd));
        return t.length ? t : undefined;
      });
      assert.equal(texts.length, 1);
      const tooLong = await post(`/order/${order.id}/extend`, { days: 365 });
      assert.equal(tooLong.status, 409);
      assert.equal(tooLong.body.message, 'STORAGE_PERIOD_TOO_LONG');
      const { SUBTRACT } = await codesOf(w, order.id);
      const from = sim.displayLines.length;
      assert.equal(await typeAndWaitOpen(sim, SUBTRACT), cell);
      assert.match(
        await waitForDisplay(sim, /open for removal/, from),
        new RegExp(`Cell ${cell} is open for removal \\(stored ${newEnd}\\)`),
      );
      await useCell(sim, cell, false);
      await untilStatus(w, order.id, 'SUBTRACTED');
    });

    it("another company's order is not found, and a bad days value is a validation error", async () => {
      const order = await w.createOrder(locker.id);
      const c = await createLockerCompany(w.db, { title: 'Other Co', defaultDays: 2 }, new Date());
      const key = (await createLockerApiKey(w.db, c.id, undefined, new Date())).key;
      const other = await w.cloud.request('POST', `${BASE}/order/${order.id}/cancel`, { token: key });
      assert.equal(other.status, 404);
      assert.equal(other.body.message, 'ORDER_NOT_FOUND');
      assert.equal((await orderRow(w.db, order.id)).isActive, 1);
      assert.equal((await post(`/order/${'z'.repeat(24)}/cancel`)).status, 404);
      const bad = await post(`/order/${order.id}/extend`, { days: 0 });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'FST_ERR_VALIDATION');
    });
  });
}
