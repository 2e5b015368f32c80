import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { finishOrder, placeOrder } from '../helpers/locker-world.ts';
import { marketClient, seedMarketWorld, ORDER_PRICE, type MarketWorld } from '../helpers/market-world.ts';
import { changeParcelStatus } from '../../cloud/services/platform/parcels.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import type { ParcelStatus } from '../../cloud/domain/platform/enums.ts';
import { deltaSync } from '../../cloud/sync/sync-out.ts';
import { lockerVersion } from '../../cloud/storage/locker-sync-queries.ts';

const REDIRECTED = 'parcel redirected';

for (const dialect of DIALECTS) {
  describe(`marketplace redirect (${dialect.name})`, () => {
    let cloud: TestCloud;
    let world: MarketWorld;
    let m: ReturnType<typeof marketClient>;
    let pvz2: { id: number };
    before(async () => {
      cloud = await startTestCloud(dialect);
      world = await seedMarketWorld(cloud);
      m = marketClient(cloud, world);
      pvz2 = await createWarehouse(
        cloud.storage.db,
        { companyId: world.w.logist.id, title: 'Pickup Osh', cityId: world.w.osh.id, isPickupPoint: true },
        new Date(),
      );
    });
    after(() => cloud.stop());
    const db = () => cloud.storage.db;
    const create = async (body: unknown, apiKey?: string) => {
      const res = await m.create(body, { apiKey });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const redirect = (trackCode: string, body: unknown, apiKey?: string) =>
      m.request('PUT', `/parcel/track-code/${encodeURIComponent(trackCode)}/redirect`, { body, apiKey });
    const statusOf = async (trackCode: string) =>
      (await m.request('GET', `/parcel/track-code/${trackCode}/status`)).body.status;
    const order = (id: string) =>
      db().selectFrom('locker_order').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const codes = (orderId: string) =>
      db().selectFrom('order_code').selectAll().where('orderId', '=', orderId).orderBy('type').execute();
    const parcelRow = (id: number) =>
      db().selectFrom('parcel').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const move = (parcelId: number, to: ParcelStatus, warehouseId?: number) =>
      changeParcelStatus(db(), { parcelId, to, warehouseId }, cloud.clock.now());
    /** What each locker's agent would receive since `since`: the lockers must follow the order. */
    const delta = async (postomatId: string, since: number) =>
      deltaSync(db(), postomatId, since, (await lockerVersion(db(), postomatId)).version);
    const refused = async (trackCode: string, body: unknown, status: number, message: string, apiKey?: string) => {
      const res = await redirect(trackCode, body, apiKey);
      assert.deepEqual([res.status, res.body.message], [status, message], `${trackCode} ${JSON.stringify(body)}`);
      return res;
    };

    describe('errors', () => {
      it('400 with none or both of toWarehouseId and toPostomatId', async () => {
        const { trackCode } = await create(m.body());
        for (const body of [{}, { toWarehouseId: pvz2.id, toPostomatId: world.lw.near.id }]) {
          const res = await refused(
            trackCode,
            body,
            400,
            "body must have exactly one of properties 'toWarehouseId', 'toPostomatId'",
          );
          assert.equal(res.body.code, 'FST_ERR_VALIDATION');
        }
        await refused(trackCode, { toWarehouseId: 0 }, 400, 'body/toWarehouseId must be >= 1');
        await refused(trackCode, { toPostomatId: 5 }, 400, 'body/toPostomatId must be string');
      });

      it("404 PARCEL_NOT_FOUND for a missing parcel or another company's", async () => {
        const theirs = await create(m.lockerBody(world.lw.near.id, { createPostomatOrder: false }), world.keys.quick);
        await refused('NO-SUCH-CODE', { toWarehouseId: pvz2.id }, 404, 'PARCEL_NOT_FOUND');
        await refused(theirs.trackCode, { toWarehouseId: pvz2.id }, 404, 'PARCEL_NOT_FOUND');
      });

      it('404 COMPANY_NOT_FOUND for a missing pickup point; POSTOMAT_NOT_FOUND for a missing or inactive locker', async () => {
        const { trackCode } = await create(m.body());
        const foreign = await createWarehouse(
          db(),
          { companyId: world.w.otherLogist.id, title: 'Not ours', isPickupPoint: true },
          new Date(),
        );
        for (const id of [9999, foreign.id, world.w.depot.id])
          await refused(trackCode, { toWarehouseId: id }, 404, 'COMPANY_NOT_FOUND');
        for (const id of ['zz000000000000000000000000', world.lw.inactive.id])
          await refused(trackCode, { toPostomatId: id }, 404, 'POSTOMAT_NOT_FOUND');
      });

      it('406 NOT_ACCEPTABLE in READYTOSHIP, COURIER_RECEIVED, SENT, TRANSFERRED and COMPLETED; allowed in the other statuses', async () => {
        const store = world.w.store.id;
        const paths: Record<string, ParcelStatus[]> = {
          READYTOSHIP: ['RECEIVED', 'READYTOSHIP'],
          COURIER_RECEIVED: ['RECEIVED', 'COURIER_RECEIVED'],
          SENT: ['RECEIVED', 'READYTOSHIP', 'SENT'],
          TRANSFERRED: ['RECEIVED', 'TRANSFERRED'],
          COMPLETED: ['RECEIVED', 'TRANSFERRED', 'COMPLETED'],
          RECEIVED: ['RECEIVED'],
          RECALL: ['RECALL'],
          LOST: ['LOST'],
        };
        for (const [status, steps] of Object.entries(paths)) {
          const parcel = await create(m.body());
          for (const to of steps) await move(parcel.id, to, to === 'RECEIVED' ? store : undefined);
          const res = await redirect(parcel.trackCode, { toWarehouseId: pvz2.id });
          if (['READYTOSHIP', 'COURIER_RECEIVED', 'SENT', 'TRANSFERRED', 'COMPLETED'].includes(status)) {
            assert.deepEqual(res.body, { statusCode: 406, error: 'Not Acceptable', message: 'NOT_ACCEPTABLE' }, status);
            assert.equal((await parcelRow(parcel.id)).redirectedAt, null);
          } else {
            assert.deepEqual([res.status, res.body.message, res.body.parcel.status], [200, REDIRECTED, status]);
          }
        }
      });

      it('502 "Postomat provider error" to a locker without locker access, or when the locker company cannot pay; nothing changes', async () => {
        for (const apiKey of [world.keys.quick, world.keys.poor]) {
          const parcel = await create(m.lockerBody(world.lw.near.id, { createPostomatOrder: false }), apiKey);
          const res = await refused(
            parcel.trackCode,
            { toPostomatId: world.lw.mid.id },
            502,
            'Postomat provider error',
            apiKey,
          );
          assert.deepEqual(res.body, { statusCode: 502, error: 'Bad Gateway', message: 'Postomat provider error' });
          const row = await parcelRow(parcel.id);
          assert.deepEqual([row.postomatId, row.redirectedAt], [world.lw.near.id, null]);
        }
      });

      it('502 when the parcel is already in a locker cell, or was collected from it', async () => {
        for (const end of ['DELIVERED', 'COMPLETED'] as const) {
          const { parcel, postomatOrder } = await create(m.lockerBody(world.lw.far.id));
          await placeOrder(
            cloud.storage,
            postomatOrder.id,
            world.lw.far.cells[end === 'DELIVERED' ? 0 : 1].id,
            cloud.clock.now(),
          );
          if (end === 'COMPLETED') await finishOrder(cloud.storage, postomatOrder.id, 'COMPLETED', cloud.clock.now());
          await refused(parcel.trackCode, { toWarehouseId: pvz2.id }, 502, 'Postomat provider error');
          await refused(parcel.trackCode, { toPostomatId: world.lw.mid.id }, 502, 'Postomat provider error');
          const o = await order(postomatOrder.id);
          assert.deepEqual([o.status, o.postomatId, o.isActive], [end, world.lw.far.id, 1]);
          assert.equal((await parcelRow(parcel.id)).postomatOrderId, postomatOrder.id);
        }
      });

      it('403 FORBIDDEN for a company that is not a marketplace', async () => {
        const { trackCode } = await create(m.body());
        await refused(trackCode, { toWarehouseId: pvz2.id }, 403, 'FORBIDDEN', world.w.keys.logist.key);
      });
    });

    describe('the parcel and its locker order', () => {
      it('to another pickup point: { message, parcel }, REDIRECTED until it is received there', async () => {
        const parcel = await create(m.body());
        const res = await redirect(parcel.trackCode, { toWarehouseId: pvz2.id });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body), ['message', 'parcel']);
        assert.deepEqual(
          [res.body.message, res.body.parcel.id, res.body.parcel.deliveryMethod, res.body.parcel.deliveryWarehouseId],
          [REDIRECTED, parcel.id, 'PICKUP', pvz2.id],
        );
        assert.equal(await statusOf(parcel.trackCode), 'REDIRECTED');
        await move(parcel.id, 'RECEIVED', world.w.store.id);
        assert.equal(await statusOf(parcel.trackCode), 'REDIRECTED', 'received on the way');
        await move(parcel.id, 'READYTOSHIP', world.w.store.id);
        await move(parcel.id, 'SENT');
        await move(parcel.id, 'RECEIVED', pvz2.id);
        assert.equal(await statusOf(parcel.trackCode), 'ARRIVED');
      });

      it('a not yet placed locker order moves with the parcel to the new locker: same order, placed there is ARRIVED', async () => {
        const { parcel, postomatOrder } = await create(m.lockerBody(world.lw.near.id));
        const before = await codes(postomatOrder.id);
        const [oldSince, newSince] = [
          (await lockerVersion(db(), world.lw.near.id)).version,
          (await lockerVersion(db(), world.lw.mid.id)).version,
        ];
        const res = await redirect(parcel.trackCode, { toPostomatId: world.lw.mid.id });
        const [left, joined] = [await delta(world.lw.near.id, oldSince), await delta(world.lw.mid.id, newSince)];
        assert.deepEqual([left.removals, left.upserts], [[postomatOrder.id], []], 'the old locker drops it');
        assert.deepEqual(
          joined.upserts.map((u) => u.orderId),
          [postomatOrder.id],
          'the new locker gets it with its codes',
        );
        assert.deepEqual(
          [res.status, res.body.parcel.postomatId, res.body.parcel.postomatOrderId, res.body.parcel.deliveryMethod],
          [200, world.lw.mid.id, postomatOrder.id, 'POSTOMAT'],
        );
        const o = await order(postomatOrder.id);
        assert.deepEqual(
          [o.postomatId, o.status, o.isActive, o.paidAmount],
          [world.lw.mid.id, 'CREATED', 1, ORDER_PRICE],
        );
        const after = await codes(postomatOrder.id);
        assert.deepEqual(
          after.map((c) => [c.type, c.password, c.postomatId, c.active]),
          before.map((c) => [c.type, c.password, world.lw.mid.id, 1]),
          'its codes come along',
        );
        assert.equal(await statusOf(parcel.trackCode), 'REDIRECTED');
        await placeOrder(cloud.storage, postomatOrder.id, world.lw.mid.cells[0].id, cloud.clock.now());
        assert.equal(await statusOf(parcel.trackCode), 'ARRIVED');
      });

      it('a moved order whose codes are live at the new locker gets three new codes', async () => {
        const { parcel, postomatOrder } = await create(m.lockerBody(world.lw.near.id));
        const { postomatOrder: there } = await create(m.lockerBody(world.lw.mid.id));
        const [down] = (await codes(postomatOrder.id)).filter((c) => c.type === 'DOWN');
        // Make the live DOWN code of an order at the new locker equal this order's DOWN code
        // (codes are unique per type: README "Codes").
        const [theirs] = (await codes(there.id)).filter((c) => c.type === 'DOWN');
        await db().updateTable('order_code').set({ password: down.password }).where('id', '=', theirs.id).execute();
        const old = (await codes(postomatOrder.id)).map((c) => c.password);
        assert.equal((await redirect(parcel.trackCode, { toPostomatId: world.lw.mid.id })).status, 200);
        const fresh = (await codes(postomatOrder.id)).map((c) => c.password);
        const live = await db()
          .selectFrom('order_code')
          .select(['type', 'password'])
          .where('postomatId', '=', world.lw.mid.id)
          .where('active', '=', 1)
          .execute();
        const downs = live.filter((c) => c.type === 'DOWN').map((c) => c.password);
        const opening = live.filter((c) => c.type !== 'DOWN').map((c) => c.password);
        assert.equal(new Set(downs).size, downs.length, 'no live DOWN code repeats at the locker');
        assert.equal(new Set(opening).size, opening.length, 'no live UP or SUBTRACT code repeats at the locker');
        assert.ok(!fresh.includes(down.password));
        assert.notDeepEqual(fresh, old);
      });

      it('to a pickup point: the not yet placed order is withdrawn (out of lists and counters, codes freed)', async () => {
        const { parcel, postomatOrder } = await create(m.lockerBody(world.lw.near.id));
        const created = async () =>
          Number(
            (
              await db()
                .selectFrom('order_stats')
                .select('count')
                .where('companyId', '=', world.w.lockerCompany.id)
                .where('status', '=', 'CREATED')
                .executeTakeFirstOrThrow()
            ).count,
          );
        const before = await created();
        const since = (await lockerVersion(db(), world.lw.near.id)).version;
        const res = await redirect(parcel.trackCode, { toWarehouseId: pvz2.id });
        assert.deepEqual(
          (await delta(world.lw.near.id, since)).removals,
          [postomatOrder.id],
          'the locker drops the withdrawn order',
        );
        assert.deepEqual(
          [
            res.body.parcel.deliveryMethod,
            res.body.parcel.postomatId,
            res.body.parcel.postomatOrderId,
            res.body.parcel.deliveryWarehouseId,
          ],
          ['PICKUP', null, null, pvz2.id],
        );
        const o = await order(postomatOrder.id);
        assert.deepEqual(
          [o.isActive, o.status, o.paidAmount],
          [0, 'CREATED', ORDER_PRICE],
          'archived with its payment on record',
        );
        assert.deepEqual(
          (await codes(postomatOrder.id)).map((c) => c.active),
          [0, 0, 0],
        );
        assert.equal(await created(), before - 1);
        const list = await cloud.request('GET', '/api/v1/integrations/postomat/order/list?page=1&pageSize=500', {
          headers: { 'x-api-token': world.keys.market },
        });
        assert.ok(!list.body.data.some((x: any) => x.id === postomatOrder.id));
        assert.equal(await statusOf(parcel.trackCode), 'REDIRECTED');
      });

      it('to a locker without an order yet (a pickup parcel, or one taken back out of its cell): a new paid order without SMS', async () => {
        const pickup = await create(m.body({ receiver: m.party('+996700177777', m.bishkek) }));
        const res = await redirect(pickup.trackCode, { toPostomatId: world.lw.far.id });
        const linked = res.body.parcel;
        assert.deepEqual(
          [linked.deliveryMethod, linked.postomatId, linked.deliveryWarehouseId],
          ['POSTOMAT', world.lw.far.id, null],
        );
        const o = await order(linked.postomatOrderId);
        const recipient = await db()
          .selectFrom('recipient')
          .select('phone')
          .where('id', '=', o.toUserId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          [o.companyId, o.postomatId, o.sendMessage, o.paidAmount, o.customData, recipient.phone],
          [world.w.lockerCompany.id, world.lw.far.id, 0, ORDER_PRICE, pickup.trackCode, '+996700177777'],
        );

        const { parcel, postomatOrder } = await create(m.lockerBody(world.lw.near.id));
        await placeOrder(cloud.storage, postomatOrder.id, world.lw.near.cells[2].id, cloud.clock.now());
        await finishOrder(cloud.storage, postomatOrder.id, 'SUBTRACTED', cloud.clock.now());
        const again = await redirect(parcel.trackCode, { toPostomatId: world.lw.mid.id });
        assert.equal(again.status, 200);
        assert.notEqual(again.body.parcel.postomatOrderId, postomatOrder.id);
        assert.equal((await order(again.body.parcel.postomatOrderId)).postomatId, world.lw.mid.id);
      });

      it('to the locker it is already going to: the order stays as it is', async () => {
        const { parcel, postomatOrder } = await create(m.lockerBody(world.lw.mid.id));
        const before = await codes(postomatOrder.id);
        const res = await redirect(parcel.trackCode, { toPostomatId: world.lw.mid.id });
        assert.equal(res.body.parcel.postomatOrderId, postomatOrder.id);
        assert.deepEqual(await codes(postomatOrder.id), before);
      });
    });
  });
}
