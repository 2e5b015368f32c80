import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { shipmentsSuite } from '../helpers/shipments-world.ts';
import { qs } from '../helpers/integrations.ts';
import { createSupplier } from '../../cloud/services/platform/clients.ts';

const NOT_FOUND = { statusCode: 404, error: 'Not Found', message: 'Supplier not found' };

for (const dialect of DIALECTS) {
  describe(`platform suppliers (${dialect.name})`, () => {
    const t = shipmentsSuite(dialect, '2026-03-06T09:00:00.000Z');
    let foreign: number;

    before(async () => {
      const db = t.cloud.storage.db;
      foreign = (
        await createSupplier(
          db,
          { companyId: t.w.otherLogist.id, name: 'Kashgar Fruit', phone: '+8613900000000' },
          t.clock.now(),
        )
      ).id;
      await createSupplier(
        db,
        { companyId: t.w.logist.id, name: 'Closed Supplier', phone: '+8613700000000', isActive: false },
        t.clock.now(),
      );
    });

    describe('GET /logistic-company/supplier/by-phone', () => {
      const byPhone = (phone: string, key = t.w.keys.logist.key) =>
        t.get(key, `/logistic-company/supplier/by-phone${qs({ phone })}`);

      it("the company's active supplier with exactly that phone", async () => {
        const res = await byPhone('+8613800000000');
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, {
          id: t.w.supplier.id,
          name: 'Yiwu Toys',
          phone: '+8613800000000',
          address: null,
          isActive: true,
          companyId: t.w.logist.id,
          cityId: t.w.urumqi.id,
          createdAt: t.clock.now().toISOString(),
          updatedAt: t.clock.now().toISOString(),
        });
      });

      it("null for another company's supplier, a switched-off one, or a phone that is not exactly the same", async () => {
        for (const [phone, key] of [
          ['+8613900000000', t.w.keys.logist.key],
          ['+8613800000000', t.w.keys.otherLogist.key],
          ['+8613700000000', t.w.keys.logist.key],
          ['8613800000000', t.w.keys.logist.key],
          ['+8613800000000 ', t.w.keys.logist.key],
        ]) {
          const res = await byPhone(phone, key);
          assert.deepEqual([res.status, res.text], [200, 'null'], phone);
        }
      });

      it('an unencoded + arrives as a space, and matches nothing', async () => {
        const res = await t.get(t.w.keys.logist.key, '/logistic-company/supplier/by-phone?phone=+8613800000000');
        assert.equal(res.text, 'null');
      });

      it('400 without a phone', async () => {
        const res = await t.get(t.w.keys.logist.key, '/logistic-company/supplier/by-phone');
        assert.deepEqual(
          [res.status, res.body.code, res.body.message],
          [400, 'FST_ERR_VALIDATION', "querystring must have required property 'phone'"],
        );
      });
    });

    describe('GET /logistic-company/supplier/{id}/parcels', () => {
      const parcels = (params: Parameters<typeof qs>[0], id = t.w.supplier.id, key = t.w.keys.logist.key) =>
        t.get(key, `/logistic-company/supplier/${id}/parcels${qs(params)}`);
      const ids = (res: { body: any }) => res.body.data.map((p: any) => p.id);

      it("without page and pageSize: all the supplier's parcels, newest first, as the parcel list shows them", async () => {
        const res = await parcels({});
        assert.equal(res.status, 200);
        const want = [t.s.parcels.receivedAtDelivery, t.s.parcels.receivedHub, t.s.parcels.awaiting];
        assert.deepEqual([res.body.total, ids(res)], [3, want]);
        const item = res.body.data[0];
        assert.deepEqual(
          [item.trackCode, item.currentStatus.status, item.client.name, item.order.isPaid, item.slot, item.expenses],
          ['TRKRECEIVEDATDELIVERY', 'RECEIVED', 'Aibek', true, null, []],
        );
        assert.deepEqual(ids(await parcels({ page: 2 })), want, 'page alone does not paginate');
      });

      it('with page and pageSize: that page, and the total', async () => {
        const res = await parcels({ page: 2, pageSize: 2 });
        assert.deepEqual([res.body.total, ids(res)], [3, [t.s.parcels.awaiting]]);
      });

      it('search, statuses (with the pickup-point rule) and isPayed', async () => {
        assert.deepEqual(ids(await parcels({ search: 'kettle' })), [t.s.parcels.receivedHub]);
        assert.deepEqual(ids(await parcels({ search: 'SRL-1' })), [
          t.s.parcels.receivedAtDelivery,
          t.s.parcels.receivedHub,
          t.s.parcels.awaiting,
        ]);
        assert.deepEqual(ids(await parcels({ search: 'SRL-2' })), []);
        const aibeks = [t.s.parcels.receivedAtDelivery, t.s.parcels.receivedHub, t.s.parcels.awaiting];
        for (const search of ['Aibek', 'ib', '+996555000001'])
          assert.deepEqual(ids(await parcels({ search })), aibeks, `${search}: the client's name or phone`);
        assert.deepEqual(ids(await parcels({ statuses: 'RECEIVED' })), [
          t.s.parcels.receivedAtDelivery,
          t.s.parcels.receivedHub,
        ]);
        assert.deepEqual(ids(await parcels({ statuses: ['ARRIVED', 'AWAITING'] })), [t.s.parcels.awaiting]);
        assert.deepEqual(ids(await parcels({ isPayed: false })), [t.s.parcels.receivedHub]);
        assert.deepEqual(ids(await parcels({ isPayed: true, page: 1, pageSize: 1 })), [t.s.parcels.receivedAtDelivery]);
      });

      it('404 "Supplier not found" for a missing supplier or another company\'s', async () => {
        for (const [id, key] of [
          [foreign, t.w.keys.logist.key],
          [t.w.supplier.id, t.w.keys.otherLogist.key],
          [987_654, t.w.keys.logist.key],
        ] as const) {
          const res = await parcels({}, id, key);
          assert.deepEqual([res.status, res.body], [404, NOT_FOUND], String(id));
        }
      });

      it('400 for a bad id, page, status or isPayed', async () => {
        assert.equal(
          (await t.get(t.w.keys.logist.key, '/logistic-company/supplier/abc/parcels')).body.message,
          'params/id must be integer',
        );
        const res = await parcels({ page: 0, statuses: 'LOST_AT_SEA', isPayed: 'yes' });
        assert.deepEqual(
          [res.status, res.body.message],
          [
            400,
            'querystring/page must be >= 1, querystring/isPayed must be boolean, querystring/statuses/0 must be equal to one of the allowed values',
          ],
        );
      });
    });
  });
}
