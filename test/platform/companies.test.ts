import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { integrationGet, qs } from '../helpers/integrations.ts';
import { ManualClock } from '../../shared/clock.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createPlatformCity, createPlatformCountry } from '../../cloud/services/platform/directories.ts';

const COMPANY_KEYS = [
  'address',
  'cargoTypes',
  'city',
  'cityId',
  'codes',
  'country',
  'countryId',
  'createdAt',
  'deliveryTypes',
  'email',
  'id',
  'isActive',
  'isCleaning',
  'isIntercity',
  'isInternational',
  'phone',
  'title',
  'type',
  'updatedAt',
];

for (const dialect of DIALECTS) {
  describe(`platform courier and logistics companies (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    const clock = new ManualClock('2026-03-03T09:00:00.000Z');
    const get = integrationGet(() => cloud);
    let _plain: number;
    let closed: number;
    let closedCourier: number;
    const titles = (res: { body: any }) => res.body.map((c: any) => c.title);

    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
      const db = cloud.storage.db;
      _plain = (await createPlatformCompany(db, { title: 'Plain Haul', type: 'LOGIST' }, clock.now())).id;
      closed = (
        await createPlatformCompany(
          db,
          { title: 'Closed Haul', type: 'LOGIST', isActive: false, isIntercity: true, isCleaning: true },
          clock.now(),
        )
      ).id;
      closedCourier = (
        await createPlatformCompany(db, { title: 'Closed Courier', type: 'COURIER', isActive: false }, clock.now())
      ).id;
      const gone = await createPlatformCountry(db, { title: 'Atlantis', isActive: false }, clock.now());
      await createPlatformCity(db, { countryId: gone.id, title: 'Poseidonia' }, clock.now());
      await createPlatformCity(db, { countryId: w.kg.id, title: 'Karakol', isActive: false }, clock.now());
    });
    after(() => cloud.stop());

    describe('GET /logistic-company/list', () => {
      it('lists the active logistics companies by id, unpaginated, as full company objects', async () => {
        const res = await get(w.keys.market.key, '/logistic-company/list');
        assert.equal(res.status, 200);
        assert.deepEqual(titles(res), ['Silk Road Logistics', 'Osh Express', 'Plain Haul']);
        const srl = res.body[0];
        assert.deepEqual(Object.keys(srl).sort(), COMPANY_KEYS);
        assert.deepEqual(
          [srl.id, srl.type, srl.isActive, srl.isIntercity, srl.isInternational, srl.isCleaning],
          [w.logist.id, 'LOGIST', true, true, true, false],
        );
        assert.deepEqual(
          [srl.country.id, srl.country.title, srl.city.id, srl.city.title],
          [w.kg.id, 'Kyrgyzstan', w.bishkek.id, 'Bishkek'],
        );
        assert.deepEqual(
          srl.codes.map((c: any) => [c.title, c.cargoTypeId]),
          [
            ['SRL', w.cargoType.id],
            ['SRLA', w.carType.id],
          ],
        );
        assert.deepEqual(srl.deliveryTypes, [
          { id: w.air.id, title: 'Air' },
          { id: w.road.id, title: 'Road' },
        ]);
        assert.deepEqual(
          srl.cargoTypes.map((t: any) => [t.id, t.type, t.isParent]),
          [
            [w.cargoType.id, 'CARGO', true],
            [w.carType.id, 'CAR', false],
          ],
        );
        assert.equal(srl.lockerCompanyId, undefined, 'the locker link stays inside');
        const bare = res.body[2];
        assert.deepEqual(
          [bare.country, bare.city, bare.codes, bare.deliveryTypes, bare.cargoTypes],
          [null, null, [], [], []],
        );
      });

      it('each flag selects companies with it (true) or without it (false), and flags combine', async () => {
        const cases: Array<[Record<string, boolean>, string[]]> = [
          [{ isIntercity: true }, ['Silk Road Logistics']],
          [{ isIntercity: false }, ['Osh Express', 'Plain Haul']],
          [{ isInternational: true }, ['Silk Road Logistics']],
          [{ isInternational: false }, ['Osh Express', 'Plain Haul']],
          [{ isCleaning: true }, ['Osh Express']],
          [{ isCleaning: false }, ['Silk Road Logistics', 'Plain Haul']],
          [{ isIntercity: false, isCleaning: false }, ['Plain Haul']],
          [{ isIntercity: true, isCleaning: true }, []],
        ];
        for (const [flags, want] of cases)
          assert.deepEqual(
            titles(await get(w.keys.logist.key, `/logistic-company/list${qs(flags)}`)),
            want,
            JSON.stringify(flags),
          );
      });

      it('400 for a flag that is not a boolean', async () => {
        const res = await get(w.keys.logist.key, '/logistic-company/list?isIntercity=yes&isCleaning=1');
        assert.deepEqual(
          [res.status, res.body.message],
          [400, 'querystring/isIntercity must be boolean, querystring/isCleaning must be boolean'],
        );
      });
    });

    describe('GET /logistic-company/{id}', () => {
      it('an active logistics company, as in the list', async () => {
        const res = await get(w.keys.warehouse.key, `/logistic-company/${w.otherLogist.id}`);
        assert.deepEqual(
          [res.status, res.body.title, res.body.city.title, res.body.codes.map((c: any) => c.title)],
          [200, 'Osh Express', 'Osh', ['OSX']],
        );
        assert.deepEqual(Object.keys(res.body).sort(), COMPANY_KEYS);
      });

      it('null for an inactive company, a company of another type, or a missing one', async () => {
        for (const id of [closed, w.warehouseCo.id, w.courier.id, 424_242]) {
          const res = await get(w.keys.logist.key, `/logistic-company/${id}`);
          assert.deepEqual([res.status, res.text], [200, 'null'], String(id));
        }
      });

      it('400 for an id that is not an integer >= 1', async () => {
        const res = await get(w.keys.logist.key, '/logistic-company/0');
        assert.deepEqual([res.status, res.body.message], [400, 'params/id must be >= 1']);
      });
    });

    describe('GET /logistic-company/countries', () => {
      it('{ total, data }: active countries, each with its active cities', async () => {
        const res = await get(w.keys.logist.key, '/logistic-company/countries');
        assert.equal(res.status, 200);
        assert.equal(res.body.total, 2);
        assert.deepEqual(
          res.body.data.map((c: any) => [c.title, c.cities.map((x: any) => x.title)]),
          [
            ['Kyrgyzstan', ['Bishkek', 'Osh']],
            ['China', ['Urumqi']],
          ],
        );
        const bishkek = res.body.data[0].cities[0];
        assert.deepEqual(
          [bishkek.id, bishkek.countryId, bishkek.lat, bishkek.lng, bishkek.isActive],
          [w.bishkek.id, w.kg.id, 42.87, 74.59, true],
        );
        assert.equal(res.body.data[0].titleEN, 'Kyrgyzstan');
      });
    });

    describe('GET /courier-company/{id}', () => {
      it('an active courier company', async () => {
        const res = await get(w.keys.market.key, `/courier-company/${w.courier.id}`);
        assert.deepEqual(
          [res.status, res.body.title, res.body.type, res.body.city.title],
          [200, 'Door to Door', 'COURIER', 'Bishkek'],
        );
        assert.deepEqual(Object.keys(res.body).sort(), COMPANY_KEYS);
      });

      it('null for an inactive courier company, another type, or a missing one', async () => {
        for (const id of [closedCourier, w.logist.id, 77_777])
          assert.equal((await get(w.keys.market.key, `/courier-company/${id}`)).text, 'null', String(id));
      });

      it('400 for an id that is not an integer', async () => {
        const res = await get(w.keys.market.key, '/courier-company/x1');
        assert.deepEqual([res.status, res.body.code], [400, 'FST_ERR_VALIDATION']);
      });
    });
  });
}
