/**
 * Returns at the locker (issue 22) through the real path: HTTP → cloud → MQTT → agent →
 * simulated boards over a pty. The sender (the order's phone) gets the DOWN code by SMS and drops
 * the parcel off; a courier collects it with the UP code. Online and with the locker offline;
 * statuses, events, notifications and subscription events at each step; a delivery's answers
 * and sync messages unchanged.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import {
  BASE,
  codesOf,
  eventsOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';
import { outboxEmpty, untilStatus } from '../sync/scenarios.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { fullSync } from '../../cloud/sync/sync-out.ts';
import { encodeQr } from '../../cloud/domain/qr-code.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { svgMatrix } from '../helpers/qr.ts';

const SENDER = '+996555000222';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] a return dropped off and collected at the locker`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    let sms: Receiver;
    let hooks: Receiver;
    before(async () => {
      sms = await startReceiver();
      hooks = await startReceiver();
      w = await startSyncWorld(dialect, { env: { SMS_PROVIDER: 'http', SMS_GATEWAY_URL: `${sms.url}/send` } });
      // The spec's company notification, to a receiver this time: its body is checked.
      await w.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${hooks.url}/notify` })
        .where('id', '=', w.company.id)
        .execute();
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
      await hooks.close();
    });

    const post = (path: string, body?: unknown) =>
      w.cloud.request('POST', `${BASE}${path}`, { token: w.company.key, body });
    const get = (path: string) => w.cloud.request('GET', `${BASE}${path}`, { token: w.company.key });
    const smsTexts = () => sms.received.map((r) => JSON.parse(r.body) as { to: string; text: string });
    const outboxOf = async (orderId: string) =>
      (
        await w.db
          .selectFrom('outbox_event')
          .select(['kind', 'event', 'target'])
          .where('orderId', '=', orderId)
          .orderBy('createdAt')
          .orderBy('event')
          .execute()
      ).map((e) => `${e.kind}:${e.event}`);
    const statusesOf = async (orderId: string) =>
      (await w.order(orderId)).statuses.map((s: { type: string }) => s.type);

    it('online: the sender gets the DOWN code by SMS, drops off, a courier collects with the UP code', async () => {
      const sub = await post('/webhook-subscriptions', {
        url: `${hooks.url}/events`,
        eventTypes: ['order.created', 'order.delivered', 'order.completed', 'order.dropped_off', 'order.collected'],
      });
      assert.equal(sub.status, 200, sub.text);
      const order = await w.createOrder(locker.id, { toUserPhone: SENDER, sendMessage: true, kind: 'RETURN' });
      assert.equal(order.kind, 'RETURN');
      assert.equal((await w.order(order.id)).kind, 'RETURN', 'the read says it is a return');
      const { DOWN, UP } = await codesOf(w, order.id);

      // The sender's SMS: the drop-off code, not the pickup code.
      const dropOff = await until('the drop-off SMS', () =>
        smsTexts().find((m) => m.to === SENDER && m.text.includes(DOWN)),
      );
      assert.match(dropOff.text, /^Drop your return off at locker "Locker \d+"\. Drop-off code: \d{4}\. Map: /);
      assert.ok(!dropOff.text.includes(UP));

      await untilAgent(
        sim,
        order.id,
        'the return known, as a return',
        (o) => o?.kind === 'RETURN' && o.codes.DOWN === DOWN,
      );
      let from = sim.displayLines.length;
      const cell = await typeAndWaitOpen(sim, DOWN);
      assert.match(await waitForDisplay(sim, /is open/, from), /put your return in/);
      from = sim.displayLines.length;
      await useCell(sim, cell, true);
      assert.match(await waitForDisplay(sim, /dropped off/, from), new RegExp(`^Return dropped off in cell ${cell}`));
      await untilStatus(w, order.id, 'DELIVERED');
      const placed = await w.order(order.id);
      assert.equal(placed.cell.number, Number(cell));
      assert.ok(placed.endDateTime, 'the storage period runs from the drop-off');
      // Extended while it waits for the courier: nothing goes to the sender (a pickup text would carry the UP code).
      const extended = await post(`/order/${order.id}/extend`, { days: 1 });
      assert.equal(extended.status, 200, extended.text);
      assert.equal(extended.body.kind, 'RETURN');

      // The courier collects with the UP code, which the company reads (GET /up-code).
      from = sim.displayLines.length;
      assert.equal(await typeAndWaitOpen(sim, UP), cell);
      assert.match(await waitForDisplay(sim, /is open/, from), /collect the return/);
      from = sim.displayLines.length;
      await useCell(sim, cell, false);
      assert.match(await waitForDisplay(sim, /collected/, from), new RegExp(`^Return collected from cell ${cell}`));
      await untilStatus(w, order.id, 'COMPLETED');
      assert.deepEqual(await statusesOf(order.id), ['CREATED', 'DELIVERED', 'COMPLETED']);
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:APPLIED', 'PICKED_UP:APPLIED'],
      );

      // Outbound: the sender's drop-off SMS, no pickup SMS to the sender, the spec's company notification.
      assert.deepEqual(await outboxOf(order.id), ['SMS:DROP_OFF_CODE', 'COMPANY_NOTIFICATION:COMPLETED']);
      const note = await until('the company notification', () =>
        hooks.received.find((r) => r.path === '/notify' && JSON.parse(r.body).orderId === order.id),
      );
      assert.deepEqual(
        JSON.parse(note.body),
        { orderId: order.id, status: 'COMPLETED' },
        "the spec's shape, unchanged",
      );
      assert.equal(smsTexts().filter((m) => m.to === SENDER).length, 1, 'one SMS to the sender in all');

      // Subscriptions: the return's own step types, each with the order (kind RETURN).
      const delivered = await until('three subscription deliveries', () => {
        const bodies = hooks.received
          .filter((r) => r.path === '/events')
          .map((r) => JSON.parse(r.body))
          .filter((b) => b.data.object.id === order.id);
        return bodies.length >= 3 ? bodies : undefined;
      });
      assert.deepEqual(delivered.map((b) => b.type).sort(), ['order.collected', 'order.created', 'order.dropped_off']);
      assert.ok(delivered.every((b) => b.data.object.kind === 'RETURN'));
      await w.cloud.request('DELETE', `${BASE}/webhook-subscriptions/${sub.body.id}`, { token: w.company.key });
    });

    it("offline: drop-off and collection on the locker's own codes, the events applied once on reconnection", async () => {
      const order = await w.createOrder(locker.id, { toUserPhone: SENDER, sendMessage: false, kind: 'RETURN' });
      const { DOWN, UP } = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'the return known', (o) => o?.kind === 'RETURN' && o.codes.UP === UP);
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);

      let from = sim.displayLines.length;
      const cell = await typeAndWaitOpen(sim, DOWN);
      assert.match(await waitForDisplay(sim, /is open/, from), /put your return in/);
      await useCell(sim, cell, true);
      await untilAgent(sim, order.id, 'dropped off locally', (o) => o?.status === 'DELIVERED' && o.cellId === cell);
      from = sim.displayLines.length;
      assert.equal(await typeAndWaitOpen(sim, UP), cell);
      assert.match(await waitForDisplay(sim, /is open/, from), /collect the return/);
      await useCell(sim, cell, false);
      await until('both events waiting in the agent', async () =>
        (await sim.agent.pendingEvents()).filter((e) => e.orderId === order.id).length === 2 ? true : undefined,
      );
      assert.equal((await w.order(order.id)).cellId, null, 'the cloud has heard nothing yet');

      await sim.agent.setNetwork(true);
      await untilStatus(w, order.id, 'COMPLETED');
      await outboxEmpty(sim);
      assert.deepEqual(await statusesOf(order.id), ['CREATED', 'DELIVERED', 'COMPLETED']);
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:APPLIED', 'PICKED_UP:APPLIED'],
      );
      assert.deepEqual(
        await outboxOf(order.id),
        ['COMPANY_NOTIFICATION:COMPLETED'],
        'no SMS: the return was created with sendMessage false',
      );
      await untilAgent(sim, order.id, 'the finished return dropped by the agent', (o) => o === undefined);
    });

    it('a delivery is unchanged: no kind in its answers or its sync message, its pickup SMS to the recipient', async () => {
      const ids: string[] = [];
      for (const body of [{}, { kind: 'DELIVERY' }]) {
        const order = await w.createOrder(locker.id, { sendMessage: true, ...body });
        ids.push(order.id);
        assert.ok(!('kind' in order), 'the create answer has no kind');
        const read = await get(`/order/${order.id}`);
        assert.ok(!('kind' in read.body), 'nor the read');
        const listed = (await get('/order/list?pageSize=100')).body.data.find((o: { id: string }) => o.id === order.id);
        assert.ok(listed && !('kind' in listed), 'nor the list');
        await untilAgent(sim, order.id, 'known as a delivery', (o) => o?.kind === 'DELIVERY');
        const { DOWN } = await codesOf(w, order.id);
        const from = sim.displayLines.length;
        const cell = await typeAndWaitOpen(sim, DOWN);
        assert.match(await waitForDisplay(sim, /is open/, from), /put the parcel in/);
        await useCell(sim, cell, true);
        await untilStatus(w, order.id, 'DELIVERED');
        assert.deepEqual(await outboxOf(order.id), ['SMS:PICKUP_CODE']);
      }
      // What the agent is sent for a delivery: no kind key at all.
      const sent = (await fullSync(w.db, locker.id, 1)).upserts.filter((o) => ids.includes(o.orderId));
      assert.equal(sent.length, 2);
      assert.ok(sent.every((o) => !('kind' in o)));
    });

    it("the drop-off code as a QR code (SVG): a return's only, its company's only", async () => {
      const order = await w.createOrder(locker.id, { toUserPhone: SENDER, sendMessage: false, kind: 'RETURN' });
      const { DOWN } = await codesOf(w, order.id);
      const res = await get(`/order/${order.id}/qr.svg`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.deepEqual(svgMatrix(res.text), encodeQr(DOWN).matrix, 'the QR code of the DOWN code');
      const delivery = await w.createOrder(locker.id);
      const refused = await get(`/order/${delivery.id}/qr.svg`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.message, 'ORDER_NOT_A_RETURN');
      const c = await createLockerCompany(w.db, { title: 'Other Co', defaultDays: 2 }, new Date());
      const key = (await createLockerApiKey(w.db, c.id, undefined, new Date())).key;
      const other = await w.cloud.request('GET', `${BASE}/order/${order.id}/qr.svg`, { token: key });
      assert.equal(other.status, 404);
      assert.equal(other.body.message, 'ORDER_NOT_FOUND');
    });

    it('a bad kind is a validation error', async () => {
      const res = await post('/order/create', {
        toUserPhone: SENDER,
        postomatId: locker.id,
        sendMessage: false,
        kind: 'PICKUP',
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'FST_ERR_VALIDATION');
      assert.match(res.body.message, /kind/);
    });
  });
}
