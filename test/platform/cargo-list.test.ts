import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { shipmentsSuite, namesIn, CARGO, type CargoName } from '../helpers/shipments-world.ts';
import { qs } from '../helpers/integrations.ts';

const LIST = '/logistic-company/cargo/list';
const SILK_ROAD = (Object.keys(CARGO) as CargoName[]).filter((n) => n !== 'strangers');

for (const dialect of DIALECTS) {
  describe(`GET /logistic-company/cargo/list (${dialect.name})`, () => {
    const t = shipmentsSuite(dialect, '2026-03-05T09:00:00.000Z');
    const list = (params: Parameters<typeof qs>[0], key = t.w.keys.logist.key) =>
      t.get(key, `${LIST}${qs({ pageSize: 50, ...params })}`);
    const names = (res: { body: any }) => namesIn(t.s.cargo, res);
    const sorted = (xs: string[]) => [...xs].sort();

    it("pages of 10 by default, newest first, only the caller's clients' cargo", async () => {
      const res = await t.get(t.w.keys.logist.key, LIST);
      assert.equal(res.status, 200);
      assert.equal(res.body.total, SILK_ROAD.length);
      const ids = res.body.data.map((c: any) => c.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a: number, b: number) => b - a),
      );
      assert.deepEqual(names(res), sorted(SILK_ROAD));
      assert.deepEqual(names(await list({}, t.w.keys.otherLogist.key)), ['strangers']);
      const page = await list({ page: 2, pageSize: 3 });
      assert.deepEqual([page.body.total, page.body.data.map((c: any) => c.id)], [SILK_ROAD.length, ids.slice(3, 6)]);
    });

    it('an item is built like a parcel item, with its tractor number', async () => {
      const [c] = (await list({ search: 'honda' })).body.data;
      assert.deepEqual(
        [c.trackCode, c.tractorNumber, c.description, c.status, c.price, c.currency],
        ['CRGATDEPOT', '01KG004DDD', 'Honda Fit', 'RECEIVED', 500, 'USD'],
      );
      assert.deepEqual(
        c.statuses.map((x: any) => x.status),
        ['RECEIVED', 'READYTOSHIP', 'SENT', 'RECEIVED'],
      );
      assert.deepEqual(
        [c.currentStatus.status, c.currentStatus.originWarehouse.title, c.currentStatus.destinationWarehouse.title],
        ['RECEIVED', 'Urumqi hub', 'Bishkek depot'],
      );
      assert.deepEqual(
        [c.client.name, c.order.currency, c.order.isPaid, c.type.type, c.slot, c.expenses],
        ['Bermet', 'USD', true, 'CAR', null, []],
      );
      assert.deepEqual(
        [c.currentWarehouseCompany.title, c.logisticCompany.title, c.receiptCity.title, c.deliveryCity.title],
        ['Silk Road Logistics', 'Silk Road Logistics', 'Urumqi', 'Bishkek'],
      );
      assert.deepEqual([c.originWarehouse.title, c.deliveryWarehouse.title], ['Urumqi hub', 'Bishkek depot']);
    });

    it("statuses select by current status, without the parcels' pickup-point rule", async () => {
      assert.deepEqual(names(await list({ statuses: 'RECEIVED' })), ['atDepot', 'atHub', 'atPvz']);
      assert.deepEqual(names(await list({ statuses: ['SENT', 'TRANSFERRED', 'LOST'] })), [
        'handedOver',
        'lost',
        'onTheRoad',
      ]);
    });

    it('RECEIVED + arrivedAtFinal: cargo received at its delivery warehouse or a pickup point', async () => {
      assert.deepEqual(names(await list({ statuses: 'RECEIVED', arrivedAtFinal: true })), ['atDepot', 'atPvz']);
    });

    it('READYTOSHIP, RECEIVED, SENT + arrivedAtFinal=false: those statuses except the previous row', async () => {
      assert.deepEqual(names(await list({ statuses: ['SENT', 'RECEIVED', 'READYTOSHIP'], arrivedAtFinal: false })), [
        'atHub',
        'onTheRoad',
        'packed',
      ]);
    });

    it('any other combination: arrivedAtFinal has no effect', async () => {
      for (const [statuses, flag] of [
        [['RECEIVED'], false],
        [['READYTOSHIP', 'RECEIVED', 'SENT'], true],
        [['RECEIVED', 'SENT'], false],
      ] as const) {
        assert.deepEqual(
          names(await list({ statuses: [...statuses], arrivedAtFinal: flag })),
          names(await list({ statuses: [...statuses] })),
          `${statuses} ${flag}`,
        );
      }
    });

    it("cargoTypes selects by the cargo type's kind; an unknown kind is a 400", async () => {
      assert.deepEqual(names(await list({ cargoTypes: 'CAR' })), ['atDepot', 'packed']);
      assert.deepEqual(names(await list({ cargoTypes: ['PACKAGE', 'CAR'] })), [
        'atDepot',
        'atPvz',
        'handedOver',
        'packed',
      ]);
      assert.deepEqual((await list({ cargoTypes: 'FREIGHT' })).body, { total: 0, data: [] });
      const bad = await list({ cargoTypes: 'SHIP' });
      assert.deepEqual(
        [bad.status, bad.body.code, bad.body.message],
        [400, 'FST_ERR_VALIDATION', 'querystring/cargoTypes/0 must be equal to one of the allowed values'],
      );
      const badStatus = await list({ statuses: 'AWAITING' });
      assert.deepEqual(
        [badStatus.status, badStatus.body.message],
        [400, 'querystring/statuses/0 must be equal to one of the allowed values'],
        'AWAITING is a parcel status only',
      );
    });

    it('search: description, code name, client name or phone, logistics company title, tractor number', async () => {
      assert.deepEqual(names(await list({ search: 'steel' })), ['onTheRoad']);
      assert.deepEqual(names(await list({ search: '01kg006' })), ['handedOver']);
      assert.deepEqual(names(await list({ search: 'silk road' })), sorted(SILK_ROAD));
      assert.deepEqual(names(await list({ search: 'bermet' })), ['atDepot', 'lost', 'packed']);
      assert.deepEqual(names(await list({ search: '+996555000002' })), ['atDepot', 'lost', 'packed']);
      assert.deepEqual(
        names(await list({ search: 'srla' })),
        ['atDepot', 'atPvz', 'handedOver', 'packed'],
        'the car code name, or every code name where the type has none',
      );
      assert.deepEqual(names(await list({ search: 'crgathub' })), [], 'a cargo track code is not searched');
      assert.deepEqual(names(await list({ search: 'SRL-1' })), ['atHub', 'atPvz', 'handedOver', 'onTheRoad']);
      assert.deepEqual(names(await list({ search: 'SRL-1', codes: [2] })), []);
      assert.deepEqual(names(await list({ search: 'fit', isPayed: true })), ['atDepot']);
    });

    it('isPayed, code and codes as on parcels', async () => {
      assert.deepEqual(names(await list({ isPayed: true })), ['atDepot', 'atHub']);
      assert.deepEqual(names(await list({ isPayed: false })), ['handedOver', 'packed']);
      assert.deepEqual(names(await list({ code: 2 })), ['atDepot', 'lost', 'packed']);
      assert.deepEqual(names(await list({ codes: [2, 1], code: 1, cargoTypes: 'CARGO' })), [
        'atHub',
        'lost',
        'onTheRoad',
      ]);
    });
  });
}
