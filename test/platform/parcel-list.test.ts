import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { shipmentsSuite, namesIn, PARCELS, type ParcelName } from '../helpers/shipments-world.ts';
import { qs } from '../helpers/integrations.ts';
import { PARCEL_ON_THE_WAY } from '../../cloud/domain/platform/list-filters.ts';

const LIST = '/logistic-company/parcel/list';
const ALL_OF_SILK_ROAD = (Object.keys(PARCELS) as ParcelName[]).filter((n) => n !== 'strangers' && n !== 'nobodys');

for (const dialect of DIALECTS) {
  describe(`GET /logistic-company/parcel/list (${dialect.name})`, () => {
    const t = shipmentsSuite(dialect, '2026-03-04T09:00:00.000Z');
    const list = (params: Parameters<typeof qs>[0], key = t.w.keys.logist.key) =>
      t.get(key, `${LIST}${qs({ pageSize: 100, ...params })}`);
    const names = (res: { body: any }) => namesIn(t.s.parcels, res);
    const sorted = (xs: string[]) => [...xs].sort();

    describe('paging, order and scope', () => {
      it('pages of 10 by default, newest (highest id) first, with the total', async () => {
        const res = await t.get(t.w.keys.logist.key, LIST);
        assert.equal(res.status, 200);
        assert.equal(res.body.total, ALL_OF_SILK_ROAD.length);
        assert.equal(res.body.data.length, 10);
        const ids = res.body.data.map((p: any) => p.id);
        assert.deepEqual(
          ids,
          [...ids].sort((a: number, b: number) => b - a),
        );
        const second = await t.get(t.w.keys.logist.key, `${LIST}?page=2`);
        assert.equal(second.body.total, ALL_OF_SILK_ROAD.length);
        assert.ok(second.body.data[0].id < ids[9]);
        const past = await t.get(t.w.keys.logist.key, `${LIST}?page=9&pageSize=5`);
        assert.deepEqual([past.body.total, past.body.data], [ALL_OF_SILK_ROAD.length, []]);
        const exact = await t.get(t.w.keys.logist.key, `${LIST}?page=2&pageSize=${ALL_OF_SILK_ROAD.length - 3}`);
        assert.deepEqual([exact.body.total, exact.body.data.length], [ALL_OF_SILK_ROAD.length, 3]);
      });

      it("holds only the parcels of the caller's clients", async () => {
        assert.deepEqual(names(await list({})), sorted(ALL_OF_SILK_ROAD));
        assert.deepEqual(names(await list({}, t.w.keys.otherLogist.key)), ['strangers']);
        const none = await list({}, t.w.keys.market.key);
        assert.deepEqual([none.body.total, none.body.data], [0, []]);
      });

      it('an item carries its fields and the related objects the spec names', async () => {
        const [p] = (await list({ search: 'TRKSENT' })).body.data;
        assert.deepEqual(
          [p.trackCode, p.description, p.weight, p.price, p.currency, p.status, p.deliveryMethod],
          ['TRKSENT', 'Steel kettle', 1.25, 15.5, 'KGS', 'SENT', 'WAREHOUSE'],
        );
        for (const key of [
          'currentStatus',
          'statuses',
          'client',
          'order',
          'type',
          'slot',
          'currentWarehouseCompany',
          'logisticCompany',
          'expenses',
          'receiptCity',
          'deliveryCity',
          'originWarehouse',
          'deliveryWarehouse',
          'postomatId',
          'postomatOrderId',
          'createdAt',
          'id',
        ]) {
          assert.ok(key in p, key);
        }
        assert.deepEqual(
          p.statuses.map((x: any) => x.status),
          ['AWAITING', 'RECEIVED', 'READYTOSHIP', 'SENT'],
        );
        assert.deepEqual(
          [p.currentStatus.status, p.currentStatus.id, p.currentStatusId],
          ['SENT', p.statuses[3].id, p.statuses[3].id],
        );
        assert.deepEqual(
          [p.currentStatus.originWarehouse.title, p.currentStatus.destinationWarehouse.title],
          ['Urumqi hub', 'Bishkek depot'],
        );
        assert.deepEqual(
          [p.currentStatus.originCity.title, p.currentStatus.destinationCity.title],
          ['Urumqi', 'Bishkek'],
        );
        assert.deepEqual([p.client.name, p.client.code], ['Bermet', 2]);
        assert.deepEqual([p.order.currency, p.order.amount, p.order.isPaid], ['KGS', 100, false]);
        assert.deepEqual([p.type.title, p.type.type], ['Package', 'PACKAGE']);
        assert.deepEqual([p.slot, p.expenses], [null, []]);
        assert.deepEqual([p.logisticCompany.id, p.logisticCompany.title], [t.w.logist.id, 'Silk Road Logistics']);
        assert.deepEqual(
          [p.receiptCity.title, p.deliveryCity.title, p.originWarehouse.title, p.deliveryWarehouse.title],
          ['Urumqi', 'Bishkek', 'Urumqi hub', 'Bishkek depot'],
        );
        assert.equal(p.currentWarehouseCompany, null, 'on the road: in no warehouse');
        const [atPvz] = (await list({ search: 'TRKRECEIVEDPVZPAID' })).body.data;
        assert.deepEqual(
          [atPvz.currentWarehouseCompany.id, atPvz.currentWarehouseCompany.title],
          [t.w.market.id, 'Bazaar Online'],
        );
        assert.equal(atPvz.currentWarehouse.isPickupPoint, true);
        assert.equal(p.searchText, undefined, 'internal columns stay inside');
      });
    });

    describe('code and codes', () => {
      const ofClient = (who: string) => ALL_OF_SILK_ROAD.filter((n) => PARCELS[n].who === who);

      it("code selects one client's parcels; codes several; with codes, code is ignored", async () => {
        assert.deepEqual(names(await list({ code: 2 })), sorted(ofClient('bermet')));
        assert.deepEqual(names(await list({ codes: [1, 2] })), sorted([...ofClient('aibek'), ...ofClient('bermet')]));
        assert.deepEqual(names(await list({ codes: [1], code: 2 })), sorted(ofClient('aibek')));
        assert.deepEqual(names(await list({ code: 7001 })), ['zeds']);
        assert.equal((await list({ code: 999 })).body.total, 0);
      });

      it('400 for a code below 1 or not a whole number', async () => {
        const res = await list({ code: 0, codes: ['x'] });
        assert.deepEqual(
          [res.status, res.body.code, res.body.message],
          [400, 'FST_ERR_VALIDATION', 'querystring/code must be >= 1, querystring/codes/0 must be integer'],
        );
      });
    });

    describe('search', () => {
      const ofClient = (who: string) => ALL_OF_SILK_ROAD.filter((n) => PARCELS[n].who === who);

      it("rule 1: <code name>-<client code>, code name in any case, selects that client's parcels", async () => {
        for (const search of ['SRL-2', 'srl-2', ' Srla-2 '])
          assert.deepEqual(names(await list({ search })), sorted(ofClient('bermet')), search);
        assert.deepEqual(names(await list({ search: 'SRL-7001' })), ['zeds']);
      });

      it("rule 1 with another company's code name, or an unknown one, selects nothing", async () => {
        for (const search of ['OSX-1', 'NOPE-1'])
          assert.deepEqual((await list({ search })).body, { total: 0, data: [] }, search);
      });

      it('rule 3: form 1 with code/codes', async () => {
        const bermets = sorted(ofClient('bermet'));
        assert.deepEqual(
          names(await list({ search: 'SRL-2', codes: [1, 2] })),
          bermets,
          'codes containing it: only that client',
        );
        assert.deepEqual(
          (await list({ search: 'SRL-2', codes: [1, 7001] })).body,
          { total: 0, data: [] },
          'codes without it',
        );
        assert.deepEqual(names(await list({ search: 'SRL-2', code: 2 })), bermets, 'the same code');
        assert.deepEqual((await list({ search: 'SRL-2', code: 1 })).body, { total: 0, data: [] }, 'another code');
        assert.deepEqual(names(await list({ search: 'SRL-2', code: 1, codes: [2] })), bermets, 'codes wins over code');
      });

      it('rule 2: track code, description, code name, client name or phone, in any case', async () => {
        assert.deepEqual(names(await list({ search: 'trkrecall' })), ['recall']);
        assert.deepEqual(names(await list({ search: 'KETTLE' })), ['receivedHub', 'sent']);
        assert.deepEqual(names(await list({ search: 'Bermet' })), sorted(ofClient('bermet')));
        assert.deepEqual(names(await list({ search: '+996555000001' })), sorted(ofClient('aibek')));
        assert.deepEqual(
          names(await list({ search: 'srl' })),
          sorted(ALL_OF_SILK_ROAD),
          'every client of Silk Road is known by SRL',
        );
        assert.deepEqual((await list({ search: 'no such thing' })).body, { total: 0, data: [] });
      });

      it('rule 2 with a whole number also selects the client with that code', async () => {
        assert.deepEqual(names(await list({ search: '7001' })), ['model7001', 'zeds']);
      });

      it("searches shorter than three characters still match (scanned within the caller's parcels)", async () => {
        assert.deepEqual(names(await list({ search: 'mp' })), ['arrivedFinalNoOrder', 'completed']);
        assert.deepEqual(names(await list({ search: '2' })), sorted(ofClient('bermet')));
        assert.deepEqual(names(await list({ search: '%' })), [], 'LIKE wildcards are plain characters');
        assert.deepEqual(names(await list({ search: 'e"' })), []);
      });

      it('search characters that mean something to SQL or FTS are plain characters', async () => {
        for (const search of ['ket"tle', 'a%b', 'x_y', 'back\\slash', 'kettle OR lamp', '"kettle"', 'NEAR(a b)']) {
          const res = await list({ search });
          assert.deepEqual([res.status, res.body.total], [200, 0], search);
        }
      });

      it("agrees with a scan of the stored search texts (the parcel's own and its client's), for any substring", async () => {
        const rows = await t.cloud.storage.db
          .selectFrom('parcel')
          .innerJoin('platform_client as c', 'c.id', 'parcel.clientId')
          .select(['parcel.id', 'parcel.searchText', 'c.searchText as clientText'])
          .where('clientCompanyId', '=', t.w.logist.id)
          .execute();
        for (const needle of [
          'et',
          'ket',
          'kettle',
          '555',
          '0000',
          'srla',
          'ed s',
          'trkarrived',
          'mode',
          '+99655500000',
          'ber',
          'be',
          'k',
        ]) {
          const want = rows
            .filter((r) => r.searchText.includes(needle) || r.clientText.includes(needle))
            .map((r) => r.id)
            .sort((a, b) => b - a);
          const got = (await list({ search: needle })).body.data.map((p: any) => p.id);
          assert.deepEqual(got, want, needle);
        }
      });

      it('search combines with code, statuses and isPayed', async () => {
        assert.deepEqual(names(await list({ search: 'kettle', code: 1 })), ['receivedHub']);
        assert.deepEqual(names(await list({ search: 'kettle', statuses: 'SENT' })), ['sent']);
        assert.deepEqual(names(await list({ search: 'aibek', isPayed: true })), ['completed', 'receivedAtDelivery']);
      });
    });

    describe('statuses', () => {
      it('selects by current status', async () => {
        assert.deepEqual(names(await list({ statuses: 'AWAITING' })), ['awaiting', 'model7001', 'zeds']);
        assert.deepEqual(names(await list({ statuses: ['SENT', 'LOST'] })), ['lost', 'sent']);
        assert.deepEqual(
          names(
            await list({
              statuses: ['COMPLETED', 'TRANSFERRED', 'COURIER_RECEIVED', 'REDIRECT_TO_PVZ', 'RECALL', 'READYTOSHIP'],
            }),
          ),
          ['completed', 'readyToShip', 'recall', 'redirected', 'transferred', 'withCourier'],
        );
      });

      it('RECEIVED: received at a warehouse that is not a pickup point', async () => {
        assert.deepEqual(names(await list({ statuses: 'RECEIVED' })), ['receivedAtDelivery', 'receivedHub']);
      });

      it('ARRIVED: arrived, plus received at a pickup point', async () => {
        assert.deepEqual(names(await list({ statuses: 'ARRIVED' })), [
          'arrivedDoorUnpaid',
          'arrivedFinalNoOrder',
          'arrivedFinalPaid',
          'arrivedOnTheWay',
          'receivedPvzNoOrder',
          'receivedPvzPaid',
        ]);
        assert.deepEqual(names(await list({ statuses: ['ARRIVED', 'RECEIVED'] })), [
          'arrivedDoorUnpaid',
          'arrivedFinalNoOrder',
          'arrivedFinalPaid',
          'arrivedOnTheWay',
          'receivedAtDelivery',
          'receivedHub',
          'receivedPvzNoOrder',
          'receivedPvzPaid',
        ]);
      });

      it('400 for an unknown status', async () => {
        const res = await list({ statuses: ['SENT', 'FLYING'] });
        const one = await list({ statuses: 'FLYING' });
        assert.deepEqual(
          [one.status, one.body.message],
          [400, 'querystring/statuses/0 must be equal to one of the allowed values'],
        );
        assert.deepEqual(
          [res.status, res.body.code, res.body.message],
          [400, 'FST_ERR_VALIDATION', 'querystring/statuses/1 must be equal to one of the allowed values'],
        );
      });
    });

    describe('special sets of arrivedAtFinal and strictArrived', () => {
      const onTheWay = [...PARCEL_ON_THE_WAY];
      const A = [
        'arrivedDoorUnpaid',
        'arrivedFinalNoOrder',
        'arrivedFinalPaid',
        'receivedAtDelivery',
        'receivedPvzNoOrder',
        'receivedPvzPaid',
      ];
      const B = ['arrivedOnTheWay', 'readyToShip', 'recall', 'receivedHub', 'redirected', 'sent'];
      const C = ['arrivedDoorUnpaid', 'arrivedFinalPaid', 'receivedPvzPaid'];
      const D = [
        'arrivedFinalNoOrder',
        'arrivedOnTheWay',
        'readyToShip',
        'recall',
        'receivedAtDelivery',
        'receivedHub',
        'receivedPvzNoOrder',
        'redirected',
        'sent',
      ];

      it('ARRIVED, RECEIVED + arrivedAtFinal: parcels at the final point (pickup point, own delivery warehouse, door)', async () => {
        assert.deepEqual(names(await list({ statuses: ['ARRIVED', 'RECEIVED'], arrivedAtFinal: true })), A);
        assert.deepEqual(
          names(await list({ statuses: ['RECEIVED', 'ARRIVED', 'RECEIVED'], arrivedAtFinal: true })),
          A,
          'any order, repeats ignored',
        );
      });

      it('the six on-the-way statuses + arrivedAtFinal=false: those statuses except parcels at the final point', async () => {
        assert.deepEqual(names(await list({ statuses: onTheWay, arrivedAtFinal: false })), B);
        assert.deepEqual(names(await list({ statuses: [...onTheWay].reverse(), arrivedAtFinal: false })), B);
      });

      it('ARRIVED + arrivedAtFinal + strictArrived: arrived at the final point with a payment order', async () => {
        assert.deepEqual(names(await list({ statuses: 'ARRIVED', arrivedAtFinal: true, strictArrived: true })), C);
      });

      it('the six + arrivedAtFinal=false + strictArrived: those statuses except the previous row', async () => {
        assert.deepEqual(names(await list({ statuses: onTheWay, arrivedAtFinal: false, strictArrived: true })), D);
      });

      it('any other combination: the flags have no effect', async () => {
        const plain = async (statuses: string[]) => names(await list({ statuses }));
        const cases: Array<[string[], Record<string, boolean>]> = [
          [['ARRIVED', 'RECEIVED'], { arrivedAtFinal: false }],
          [['ARRIVED', 'RECEIVED'], { arrivedAtFinal: true, strictArrived: true }],
          [['ARRIVED', 'RECEIVED'], { arrivedAtFinal: true, strictArrived: false }],
          [['ARRIVED'], { arrivedAtFinal: true }],
          [['ARRIVED'], { arrivedAtFinal: true, strictArrived: false }],
          [['ARRIVED'], { strictArrived: true }],
          [['RECEIVED'], { arrivedAtFinal: true }],
          [onTheWay, { arrivedAtFinal: true }],
          [onTheWay.slice(1), { arrivedAtFinal: false }],
          [[...onTheWay, 'LOST'], { arrivedAtFinal: false, strictArrived: true }],
          [onTheWay, { strictArrived: true }],
        ];
        for (const [statuses, flags] of cases) {
          assert.deepEqual(
            names(await list({ statuses, ...flags })),
            await plain(statuses),
            `${statuses} ${JSON.stringify(flags)}`,
          );
        }
        assert.deepEqual(
          names(await list({ arrivedAtFinal: true, strictArrived: true })),
          sorted(ALL_OF_SILK_ROAD),
          'without statuses',
        );
      });
    });

    describe('isPayed', () => {
      it('true: only parcels with a paid order; false: only with an unpaid one; parcels without an order match neither', async () => {
        const withPay = (p: string) => ALL_OF_SILK_ROAD.filter((n) => PARCELS[n].pay === p);
        assert.deepEqual(names(await list({ isPayed: true })), sorted(withPay('paid')));
        assert.deepEqual(names(await list({ isPayed: false })), sorted(withPay('unpaid')));
        assert.ok(withPay('paid').length > 0 && withPay('unpaid').length > 0);
        assert.deepEqual(
          names(await list({ isPayed: true, statuses: 'ARRIVED', arrivedAtFinal: true, strictArrived: true })),
          ['arrivedFinalPaid', 'receivedPvzPaid'],
        );
      });

      it('400 for a value that is not a boolean', async () => {
        const res = await list({ isPayed: 'paid' });
        assert.deepEqual([res.status, res.body.message], [400, 'querystring/isPayed must be boolean']);
      });
    });
  });
}
