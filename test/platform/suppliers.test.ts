import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { seedShipments, type Shipments } from '../helpers/shipments-world.ts';
import { integrationGet, qs } from '../helpers/integrations.ts';
import { ManualClock } from '../../cloud/clock.ts';
import { createSupplier } from '../../cloud/services/platform/clients.ts';

const NOT_FOUND = { statusCode: 404, error: 'Not Found', message: 'Supplier not found' };

for (const dialect of DIALECTS) {
  describe(`platform suppliers (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: PlatformWorld;
    let s: Shipments;
    const clock = new ManualClock('2026-03-06T09:00:00.000Z');
    const get = integrationGet(() => cloud);
    let foreign: number;

    before(async () => {
      cloud = await startTestCloud(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
      s = await seedShipments(cloud.storage.db, w, clock.now());
      foreign = (await createSupplier(cloud.storage.db, { companyId: w.otherLogist.id, name: 'Kashgar Fruit', phone: '+8613900000000' }, clock.now())).id;
      await createSupplier(cloud.storage.db, { companyId: w.logist.id, name: 'Closed Supplier', phone: '+8613700000000', isActive: false }, clock.now());
    });
    after(() => cloud.stop());

    describe('GET /logistic-company/supplier/by-phone', () => {
      const byPhone = (phone: string, key = w.keys.logist.key) => get(key, `/logistic-company/supplier/by-phone${qs({ phone })}`);

      it('the company\'s active supplier with exactly that phone', async () => {
        const res = await byPhone('+8613800000000');
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, {
          id: w.supplier.id, name: 'Yiwu Toys', phone: '+8613800000000', address: null, isActive: true, companyId: w.logist.id, cityId: w.urumqi.id,
          createdAt: clock.now().toISOString(), updatedAt: clock.now().toISOString(),
        });
      });

      it('null for another company\'s supplier, a switched-off one, or a phone that is not exactly the same', async () => {
        for (const [phone, key] of [['+8613900000000', w.keys.logist.key], ['+8613800000000', w.keys.otherLogist.key], ['+8613700000000', w.keys.logist.key], ['8613800000000', w.keys.logist.key], ['+8613800000000 ', w.keys.logist.key]]) {
          const res = await byPhone(phone, key);
          assert.deepEqual([res.status, res.text], [200, 'null'], phone);
        }
      });

      it('an unencoded + arrives as a space, and matches nothing', async () => {
        const res = await get(w.keys.logist.key, '/logistic-company/supplier/by-phone?phone=+8613800000000');
        assert.equal(res.text, 'null');
      });

      it('400 without a phone', async () => {
        const res = await get(w.keys.logist.key, '/logistic-company/supplier/by-phone');
        assert.deepEqual([res.status, res.body.code, res.body.message], [400, 'FST_ERR_VALIDATION', "querystring must have required property 'phone'"]);
      });
    });

    describe('GET /logistic-company/supplier/{id}/parcels', () => {
      const parcels = (params: Parameters<typeof qs>[0], id = w.supplier.id, key = w.keys.logist.key) => get(key, `/logistic-company/supplier/${id}/parcels${qs(params)}`);
      const ids = (res: { body: any }) => res.body.data.map((p: any) => p.id);

      it('without page and pageSize: all the supplier\'s parcels, newest first, as the parcel list shows them', async () => {
        const res = await parcels({});
        assert.equal(res.status, 200);
        const want = [s.parcels.receivedAtDelivery, s.parcels.receivedHub, s.parcels.awaiting];
        assert.deepEqual([res.body.total, ids(res)], [3, want]);
        const item = res.body.data[0];
        assert.deepEqual([item.trackCode, item.currentStatus.status, item.client.name, item.order.isPaid, item.slot, item.expenses], ['TRKRECEIVEDATDELIVERY', 'RECEIVED', 'Aibek', true, null, []]);
        assert.deepEqual(ids(await parcels({ page: 2 })), want, 'page alone does not paginate');
      });

      it('with page and pageSize: that page, and the total', async () => {
        const res = await parcels({ page: 2, pageSize: 2 });
        assert.deepEqual([res.body.total, ids(res)], [3, [s.parcels.awaiting]]);
      });

      it('search, statuses (with the pickup-point rule) and isPayed', async () => {
        assert.deepEqual(ids(await parcels({ search: 'kettle' })), [s.parcels.receivedHub]);
        assert.deepEqual(ids(await parcels({ search: 'SRL-1' })), [s.parcels.receivedAtDelivery, s.parcels.receivedHub, s.parcels.awaiting]);
        assert.deepEqual(ids(await parcels({ search: 'SRL-2' })), []);
        assert.deepEqual(ids(await parcels({ statuses: 'RECEIVED' })), [s.parcels.receivedAtDelivery, s.parcels.receivedHub]);
        assert.deepEqual(ids(await parcels({ statuses: ['ARRIVED', 'AWAITING'] })), [s.parcels.awaiting]);
        assert.deepEqual(ids(await parcels({ isPayed: false })), [s.parcels.receivedHub]);
        assert.deepEqual(ids(await parcels({ isPayed: true, page: 1, pageSize: 1 })), [s.parcels.receivedAtDelivery]);
      });

      it('404 "Supplier not found" for a missing supplier or another company\'s', async () => {
        for (const [id, key] of [[foreign, w.keys.logist.key], [w.supplier.id, w.keys.otherLogist.key], [987_654, w.keys.logist.key]] as const) {
          const res = await parcels({}, id, key);
          assert.deepEqual([res.status, res.body], [404, NOT_FOUND], String(id));
        }
      });

      it('400 for a bad id, page, status or isPayed', async () => {
        assert.equal((await get(w.keys.logist.key, '/logistic-company/supplier/abc/parcels')).body.message, 'params/id must be integer');
        const res = await parcels({ page: 0, statuses: 'LOST_AT_SEA', isPayed: 'yes' });
        assert.deepEqual([res.status, res.body.message], [400, 'querystring/page must be >= 1, querystring/isPayed must be boolean, querystring/statuses/0 must be equal to one of the allowed values']);
      });
    });
  });
}
