/**
 * The sandbox endpoints (SANDBOX=true) drive simulated lockers through the real path: the code
 * typed on the keypad, the agent's report over MQTT, the cloud's status change and its events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { sandboxFleetOf } from '../../scripts/sandbox-fleet.ts';
import { startTestCloud } from '../helpers/cloud.ts';
import { marketClient, seedMarketWorld } from '../helpers/market-world.ts';
import { DIALECTS } from '../helpers/storage.ts';
import {
  BASE,
  orderRow,
  untilAgent,
  startSyncWorld,
  until,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';

const SANDBOX = '/api/v1/sandbox';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] sandbox: an integrator drives the simulated lockers`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    const sims = new Map<string, SimLocker>();
    const post = (path: string, token = w.company.key) => w.cloud.request('POST', SANDBOX + path, { token });
    const outboxEvents = async (orderId: string) =>
      (await w.db.selectFrom('outbox_event').select('event').where('orderId', '=', orderId).execute()).map(
        (r) => r.event,
      );

    before(async () => {
      // A price, so that an order created without `pay` waits for the recipient's payment.
      w = await startSyncWorld(dialect, { env: { SANDBOX: 'true' }, orderPrice: 500 });
      locker = await w.newLocker('Sandbox Mall');
      sim = await w.startAgent(locker);
      sims.set(locker.id, sim);
      w.cloud.deps.sandbox!.attach(sandboxFleetOf(sims));
      await untilOnline(w, locker.id);
    });
    after(() => w.close());

    /** An order, placed at once: the sandbox waits for its codes to reach the locker. */
    const orderAtLocker = (body: Record<string, unknown> = { pay: true }) => w.createOrder(locker.id, body);

    it('place: the DOWN code opens a cell, the parcel goes in, the order is DELIVERED with its SMS queued', async () => {
      const order = await orderAtLocker({ pay: true, sendMessage: true });
      const res = await post(`/orders/${order.id}/place`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'DELIVERED', res.text);
      assert.equal(res.body.reachedCloud, true);
      const door = sim.hardwareCells().find((c) => c.cellId === res.body.cell);
      assert.ok(door?.parcel && door.doorClosed, 'the parcel is in the named cell and its door is shut');
      assert.equal((await orderRow(w.db, order.id)).status, 'DELIVERED');
      assert.deepEqual(await outboxEvents(order.id), ['PICKUP_CODE'], 'the recipient is told, as in production');
      // Placed once: a second placement is refused by the order's state, and nothing opens.
      const again = await post(`/orders/${order.id}/place`);
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'ORDER_STATE');
      assert.equal(sim.hardwareCells().filter((c) => !c.doorClosed).length, 0);
    });

    it('collect: refused at the locker while unpaid (409 with its display, still DELIVERED); a paid order is COMPLETED', async () => {
      const unpaid = await orderAtLocker({ pay: false });
      const placedUnpaid = await post(`/orders/${unpaid.id}/place`);
      assert.equal(placedUnpaid.status, 200, placedUnpaid.text);
      const refused = await post(`/orders/${unpaid.id}/collect`);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.code, 'LOCKER_REFUSED');
      assert.equal(refused.body.statusCode, 409);
      assert.equal(typeof refused.body.display, 'string');
      assert.ok(refused.body.display.length > 0, 'the locker said why');
      assert.equal((await orderRow(w.db, unpaid.id)).status, 'DELIVERED');

      const paid = await orderAtLocker({ pay: true });
      const placed = await post(`/orders/${paid.id}/place`);
      const collected = await post(`/orders/${paid.id}/collect`);
      assert.equal(collected.status, 200, collected.text);
      assert.equal(collected.body.status, 'COMPLETED');
      assert.equal(collected.body.cell, placed.body.cell, 'the recipient opened the cell the parcel went into');
      assert.equal(sim.hardwareCells().find((c) => c.cellId === placed.body.cell)?.parcel, false);
      assert.deepEqual(await outboxEvents(paid.id), ['COMPLETED'], "the company's notification is queued");
    });

    it("a return: place is the sender's drop-off, collect the courier's collection (issue 22)", async () => {
      const order = await orderAtLocker({ pay: true, sendMessage: true, kind: 'RETURN', toUserPhone: '+996555000333' });
      const dropped = await post(`/orders/${order.id}/place`);
      assert.equal(dropped.status, 200, dropped.text);
      assert.equal(dropped.body.status, 'DELIVERED');
      assert.match(dropped.body.display, /put your return in/, 'the locker speaks to a sender');
      const collected = await post(`/orders/${order.id}/collect`);
      assert.equal(collected.status, 200, collected.text);
      assert.equal(collected.body.status, 'COMPLETED');
      assert.equal(collected.body.cell, dropped.body.cell);
      assert.match(collected.body.display, /collect the return/);
      assert.deepEqual(
        (await outboxEvents(order.id)).sort(),
        ['COMPLETED', 'DROP_OFF_CODE'],
        'the drop-off code to the sender, no pickup code to them',
      );
    });

    it('subtract: staff take a placed parcel back: SUBTRACTED', async () => {
      const order = await orderAtLocker();
      assert.equal((await post(`/orders/${order.id}/place`)).status, 200);
      const res = await post(`/orders/${order.id}/subtract`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'SUBTRACTED');
      assert.equal((await orderRow(w.db, order.id)).status, 'SUBTRACTED');
    });

    it('expire: a DELIVERED order ends a minute ago and counts in expiredAggregate; a CREATED one is archived and its code refused at the locker', async () => {
      const before = (await w.cloud.request('GET', `${BASE}/order/list`, { token: w.company.key })).body
        .expiredAggregate._count;
      const delivered = await orderAtLocker();
      assert.equal((await post(`/orders/${delivered.id}/place`)).status, 200);
      const res = await post(`/orders/${delivered.id}/expire`);
      assert.equal(res.status, 200, res.text);
      assert.ok(Date.parse(res.body.endDateTime) < Date.now(), 'the storage period is over');
      const list = (await w.cloud.request('GET', `${BASE}/order/list`, { token: w.company.key })).body;
      assert.equal(list.expiredAggregate._count, before + 1);

      const created = await orderAtLocker();
      const archived = await post(`/orders/${created.id}/expire`);
      assert.equal(archived.status, 200, archived.text);
      assert.equal(archived.body.isActive, false);
      assert.ok(archived.body.expiredAt);
      // Its codes are withdrawn from the locker at the next sync: the DOWN code opens nothing.
      await untilAgent(sim, created.id, 'the locker drops the archived order', (o) => o === undefined);
      const place = await post(`/orders/${created.id}/place`);
      assert.equal(place.status, 409, place.text);
      assert.equal(place.body.code, 'LOCKER_REFUSED');
    });

    it("expire: a sized order (issue 22) is placed in a cell of its size, and another one's reservation lapses now: EXPIRED, capacity freed", async () => {
      const sized = await orderAtLocker({ pay: true, cellSize: 'L' });
      assert.equal(sized.cellSize, 'L');
      const placed = await post(`/orders/${sized.id}/place`);
      assert.equal(placed.status, 200, placed.text);
      assert.equal(
        sim.hardwareCells().find((c) => c.cellId === placed.body.cell)?.size,
        'L',
        'L, the smallest size the order may take that is free',
      );

      const availability = async () =>
        (
          await w.cloud.request('GET', `${BASE}/postomat/${locker.id}/availability`, { token: w.company.key })
        ).body.sizes.find((x: any) => x.size === 'M');
      const held = await orderAtLocker({ pay: true, cellSize: 'M' });
      assert.equal((await availability()).promised, 1);
      const res = await post(`/orders/${held.id}/expire`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'EXPIRED');
      assert.equal(res.body.isActive, false);
      assert.equal((await availability()).promised, 0, 'its cell is available again');
      const read = await w.cloud.request('GET', `${BASE}/order/${held.id}?withCurrentStatus=true`, {
        token: w.company.key,
      });
      assert.equal(read.body.currentStatus.type, 'EXPIRED');
      await untilAgent(sim, held.id, 'the locker drops the lapsed order', (o) => o === undefined);
      // EXPIRED is not CREATED: the sandbox refuses before typing (the keypad's "Wrong code" is in test/extensions/cell-sizes.test.ts).
      const place = await post(`/orders/${held.id}/place`);
      assert.equal(place.status, 409, place.text);
      assert.equal(place.body.code, 'ORDER_STATE');
    });

    it('offline: the locker works on, the cloud hears of the placement when it is back online', async () => {
      const order = await orderAtLocker();
      await untilAgent(sim, order.id, 'the codes reach the locker before it goes offline', (o) => o !== undefined);
      const off = await post(`/lockers/${locker.id}/offline`);
      assert.equal(off.status, 200, off.text);
      assert.deepEqual(off.body, { lockerId: locker.id, online: false });
      await untilOnline(w, locker.id, false);
      const placed = await post(`/orders/${order.id}/place`);
      assert.equal(placed.status, 202, placed.text);
      assert.equal(placed.body.reachedCloud, false);
      assert.equal(placed.body.status, 'CREATED');
      assert.equal((await post(`/lockers/${locker.id}/online`)).status, 200);
      await until('the placement reaches the cloud', async () =>
        (await orderRow(w.db, order.id)).status === 'DELIVERED' ? true : undefined,
      );
    });

    it("a marketplace drives its parcel's locker order with its platform key: ARRIVED, then TRANSFERRED_TO_CLIENT", async () => {
      const market = await seedMarketWorld(w.cloud);
      const m = marketClient(w.cloud, market);
      const created = await m.create(m.lockerBody(locker.id));
      assert.equal(created.status, 200, created.text);
      const { parcel, postomatOrder } = created.body;
      const asMarket = (path: string, apiKey = market.keys.market) =>
        w.cloud.request('POST', SANDBOX + path, { headers: { 'x-api-token': apiKey } });
      const placed = await asMarket(`/orders/${postomatOrder.id}/place`);
      assert.equal(placed.status, 200, placed.text);
      assert.equal((await m.request('GET', `/parcel/track-code/${parcel.trackCode}/status`)).body.status, 'ARRIVED');
      // A marketplace without locker access acts on no locker order; the Locker API company's key does not reach the marketplace's.
      const refused = await asMarket(`/orders/${postomatOrder.id}/collect`, market.keys.quick);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.code, 'LOCKER_ACCESS_OFF');
      assert.equal((await post(`/orders/${postomatOrder.id}/collect`)).status, 404);
      const collected = await asMarket(`/orders/${postomatOrder.id}/collect`);
      assert.equal(collected.status, 200, collected.text);
      assert.equal(
        (await m.request('GET', `/parcel/track-code/${parcel.trackCode}/status`)).body.status,
        'TRANSFERRED_TO_CLIENT',
      );
    });

    it("another company's order is not found; an unknown locker is 404; no key is 401", async () => {
      const order = await orderAtLocker();
      const other = await createLockerCompany(
        w.db,
        { title: 'Other Co', defaultDays: 2, balance: 0, orderPrice: 0 },
        new Date(),
      );
      const otherKey = (await createLockerApiKey(w.db, other.id, undefined, new Date())).key;
      const res = await post(`/orders/${order.id}/place`, otherKey);
      assert.equal(res.status, 404, res.text);
      assert.equal((await orderRow(w.db, order.id)).status, 'CREATED', 'nothing happened at the locker');
      assert.equal((await post(`/lockers/cm0000000000000000000000/offline`)).status, 404);
      assert.equal((await w.cloud.request('POST', `${SANDBOX}/orders/${order.id}/place`)).status, 401);
    });
  });
}

describe('sandbox endpoints without SANDBOX=true', () => {
  it('are absent: 404 like any unknown path, even with a valid key', async () => {
    const [dialect] = DIALECTS;
    const cloud = await startTestCloud(dialect);
    try {
      const c = await createLockerCompany(
        cloud.storage.db,
        { title: 'Plain Co', defaultDays: 2, balance: 0, orderPrice: 0 },
        new Date(),
      );
      const key = (await createLockerApiKey(cloud.storage.db, c.id, undefined, new Date())).key;
      for (const path of ['/orders/cm0000000000000000000000/place', '/lockers/cm0000000000000000000000/offline']) {
        const res = await cloud.request('POST', SANDBOX + path, { token: key });
        assert.equal(res.status, 404, path);
        assert.match(res.body.message, /^Route POST:/);
      }
      assert.equal(cloud.deps.sandbox, undefined);
      // The document this cloud serves has no sandbox operations either (the committed one has them, tagged Sandbox).
      const doc = (await cloud.request('GET', '/api/v1/openapi.json')).body;
      assert.ok(Object.keys(doc.paths).length > 50);
      assert.deepEqual(
        Object.keys(doc.paths).filter((p) => p.startsWith(SANDBOX)),
        [],
      );
    } finally {
      await cloud.stop();
    }
  });
});
