import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { createPlatformCity } from '../../cloud/services/platform/directories.ts';
import { haversineKm } from '../../cloud/domain/geo.ts';

const M = '/api/v1/integrations/market-company';

for (const dialect of DIALECTS) {
  describe(`marketplace pickup points and cities (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    /** pickup points the market sees, by name */
    const p: Record<string, { id: number }> = {};
    before(async () => {
      cloud = await startTestApp(dialect);
      const db = cloud.storage.db;
      w = await seedPlatformWorld(db);
      // The world's "Pickup Dordoi" (market's own, Bishkek) is p.dordoi.
      p.dordoi = w.pvz;
      p.partner = await createWarehouse(
        db,
        {
          companyId: w.logist.id,
          title: 'Pickup Alamedin',
          titleCN: '阿拉梅丁',
          cityId: w.bishkek.id,
          lat: 42.86,
          lng: 74.65,
          isPickupPoint: true,
          schedule: '09-18',
        },
        new Date(),
      );
      p.osh = await createWarehouse(
        db,
        {
          companyId: w.market.id,
          title: 'Pickup Osh Bazaar',
          cityId: w.osh.id,
          lat: 40.53,
          lng: 72.8,
          isPickupPoint: true,
        },
        new Date(),
      );
      p.nowhere = await createWarehouse(
        db,
        { companyId: w.market.id, title: 'Pickup Karakol (no coordinates)', cityId: w.osh.id, isPickupPoint: true },
        new Date(),
      );
      // Never shown: closed, not a pickup point, or another marketplace's network.
      p.closed = await createWarehouse(
        db,
        {
          companyId: w.market.id,
          title: 'Pickup Closed',
          lat: 42.87,
          lng: 74.59,
          isPickupPoint: true,
          isActive: false,
        },
        new Date(),
      );
      p.foreign = await createWarehouse(
        db,
        { companyId: w.otherLogist.id, title: 'Pickup of Osh Express', lat: 42.87, lng: 74.59, isPickupPoint: true },
        new Date(),
      );
      await createPlatformCity(db, { countryId: w.kg.id, title: 'Abandoned', isActive: false }, new Date());
    });
    after(() => cloud.stop());

    const get = (path: string, key = w.keys.market.key) =>
      cloud.request('GET', `${M}${path}`, { headers: { 'x-api-token': key } });
    const titles = (res: { body: any }) => res.body.data.map((x: any) => x.title);

    it('403 FORBIDDEN for a company that is not a marketplace', async () => {
      for (const key of [w.keys.logist.key, w.keys.warehouse.key, w.keys.courier.key]) {
        const res = await get('/opp/list?page=1&pageSize=5', key);
        assert.deepEqual(res.body, { statusCode: 403, error: 'Forbidden', message: 'FORBIDDEN' });
      }
    });

    describe('GET /opp/list', () => {
      it("active pickup points of the marketplace and of its partners, by title, with the spec's fields", async () => {
        const res = await get('/opp/list?page=1&pageSize=10');
        assert.equal(res.status, 200);
        assert.deepEqual(titles(res), [
          'Pickup Alamedin',
          'Pickup Dordoi',
          'Pickup Karakol (no coordinates)',
          'Pickup Osh Bazaar',
        ]);
        assert.equal(res.body.total, 4);
        const dordoi = res.body.data[1];
        assert.deepEqual(Object.keys(dordoi).sort(), [
          'address',
          'cityId',
          'countryId',
          'createdAt',
          'id',
          'lat',
          'lng',
          'schedule',
          'schedules',
          'title',
          'titleCN',
          'titleEN',
          'titleKY',
          'updatedAt',
        ]);
        assert.deepEqual(
          [dordoi.id, dordoi.titleEN, dordoi.schedules, dordoi.countryId],
          [p.dordoi.id, 'Pickup Dordoi', [{ day: 'MON', open: '09:00', close: '20:00' }], w.kg.id],
        );
      });

      it('pages, ids, cityId, countryId', async () => {
        const page2 = await get('/opp/list?page=2&pageSize=3');
        assert.deepEqual([page2.body.total, titles(page2)], [4, ['Pickup Osh Bazaar']]);
        assert.deepEqual(
          titles(await get(`/opp/list?page=1&pageSize=10&ids=${p.osh.id}&ids=${p.partner.id}&ids=${p.foreign.id}`)),
          ['Pickup Alamedin', 'Pickup Osh Bazaar'],
        );
        assert.deepEqual(
          titles(await get(`/opp/list?page=1&pageSize=10&ids=${p.osh.id}`)),
          ['Pickup Osh Bazaar'],
          'one id is an array of one',
        );
        assert.deepEqual(titles(await get(`/opp/list?page=1&pageSize=10&cityId=${w.osh.id}`)), [
          'Pickup Karakol (no coordinates)',
          'Pickup Osh Bazaar',
        ]);
        const inChina = await get(`/opp/list?page=1&pageSize=10&countryId=${w.cn.id}`);
        assert.deepEqual([inChina.body.total, inChina.body.data], [0, []]);
      });

      it("withCity and withCountry add the platform's city and country", async () => {
        const res = await get(`/opp/list?page=1&pageSize=1&ids=${p.dordoi.id}&withCity=true&withCountry=true`);
        const [one] = res.body.data;
        assert.deepEqual(
          [one.city.id, one.city.title, one.city.countryId, one.country.id, one.country.title],
          [w.bishkek.id, 'Bishkek', w.kg.id, w.kg.id, 'Kyrgyzstan'],
        );
        assert.equal((await get('/opp/list?page=1&pageSize=1')).body.data[0].city, undefined, 'not without the flag');
      });

      it('latitude and longitude sort by distance, add `distance` in km and leave out points without coordinates', async () => {
        const here = { lat: 42.86, lng: 74.64 };
        const res = await get(`/opp/list?page=1&pageSize=10&latitude=${here.lat}&longitude=${here.lng}`);
        assert.deepEqual(titles(res), ['Pickup Alamedin', 'Pickup Dordoi', 'Pickup Osh Bazaar']);
        assert.equal(res.body.total, 3);
        assert.ok(Math.abs(res.body.data[0].distance - haversineKm(here.lat, here.lng, 42.86, 74.65)) < 1e-9);
        assert.ok(res.body.data[0].distance < res.body.data[1].distance && res.body.data[2].distance > 200);
        const second = await get(
          `/opp/list?page=2&pageSize=2&latitude=${here.lat}&longitude=${here.lng}&cityId=${w.bishkek.id}`,
        );
        assert.deepEqual([second.body.total, titles(second)], [2, []]);
        assert.equal(
          (await get(`/opp/list?page=1&pageSize=10&latitude=${here.lat}`)).body.data[0].distance,
          undefined,
          'one coordinate alone is ignored',
        );
      });

      it('400: page and pageSize required, pageSize 1-500, integer ids', async () => {
        const cases: Array<[string, string]> = [
          ['pageSize=5', "querystring must have required property 'page'"],
          ['page=1', "querystring must have required property 'pageSize'"],
          ['page=1&pageSize=501', 'querystring/pageSize must be <= 500'],
          ['page=0&pageSize=0', 'querystring/page must be >= 1, querystring/pageSize must be >= 1'],
          ['page=1&pageSize=5&ids=x', 'querystring/ids/0 must be integer'],
          ['page=1&pageSize=5&latitude=91', 'querystring/latitude must be <= 90'],
        ];
        for (const [q, message] of cases) {
          const res = await get(`/opp/list?${q}`);
          assert.deepEqual([res.status, res.body.code, res.body.message], [400, 'FST_ERR_VALIDATION', message], q);
        }
      });
    });

    describe('GET /opp/{id}', () => {
      it('one pickup point, with city and country when asked', async () => {
        const res = await get(`/opp/${p.partner.id}?withCity=true&withCountry=true`);
        assert.deepEqual(
          [res.status, res.body.title, res.body.titleCN, res.body.city.title, res.body.country.title],
          [200, 'Pickup Alamedin', '阿拉梅丁', 'Bishkek', 'Kyrgyzstan'],
        );
        assert.equal((await get(`/opp/${p.osh.id}`)).body.city, undefined);
      });

      it('404 WAREHOUSE_NOT_FOUND for a missing, closed, foreign or non-pickup warehouse; 400 for a non-integer id', async () => {
        for (const id of [99999, p.closed.id, p.foreign.id, w.depot.id]) {
          const res = await get(`/opp/${id}`);
          assert.deepEqual(
            res.body,
            { statusCode: 404, error: 'Not Found', message: 'WAREHOUSE_NOT_FOUND' },
            String(id),
          );
        }
        assert.equal((await get('/opp/abc')).status, 400);
      });
    });

    describe('cities', () => {
      it('GET /opp/city: every active city by title, paged, with the country when asked', async () => {
        const res = await get('/opp/city?page=1&pageSize=500&withCountry=true');
        assert.deepEqual([res.body.total, titles(res)], [3, ['Bishkek', 'Osh', 'Urumqi']]);
        assert.deepEqual(
          [res.body.data[2].country.title, res.body.data[0].lat, res.body.data[0].isActive],
          ['China', 42.87, true],
        );
        const second = await get('/opp/city?page=2&pageSize=2');
        assert.deepEqual([second.body.total, titles(second), second.body.data[0].country], [3, ['Urumqi'], undefined]);
        assert.equal((await get('/opp/city?page=1')).status, 400);
        assert.equal((await get('/opp/city?page=1&pageSize=501')).status, 400);
      });

      it('GET /opp/city/{id}: the city with its country when asked; null when there is none', async () => {
        const res = await get(`/opp/city/${w.urumqi.id}?withCountry=true`);
        assert.deepEqual([res.body.title, res.body.countryId, res.body.country.title], ['Urumqi', w.cn.id, 'China']);
        const none = await get('/opp/city/9999');
        assert.deepEqual([none.status, none.body], [200, null]);
        assert.equal((await get('/opp/city/x')).status, 400);
      });
    });
  });
}
