import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';

const BASE = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`directories (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    before(async () => {
      cloud = await startTestApp(dialect);
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(() => cloud.stop());
    const get = (path: string) => cloud.request('GET', `${BASE}${path}`, { token: w.companyA.key });

    it('GET /country lists active countries, with active cities on request', async () => {
      const plain = await get('/country');
      assert.deepEqual(plain.body.total, 1);
      assert.equal(plain.body.data[0].title, 'Kyrgyzstan');
      assert.equal('cities' in plain.body.data[0], false);
      const withCities = await get('/country?withCities=true');
      assert.deepEqual(
        withCities.body.data[0].cities.map((c: any) => c.title),
        ['Bishkek', 'Osh'],
      );
    });

    it('GET /city lists active cities, paged only with both parameters, country on request', async () => {
      const all = await get('/city');
      assert.deepEqual(all.body, { total: 2, data: all.body.data });
      assert.deepEqual(
        all.body.data.map((c: any) => c.title),
        ['Bishkek', 'Osh'],
      );
      assert.equal((await get('/city?page=2')).body.data.length, 2);
      const page = await get('/city?page=2&pageSize=1&withCountry=true');
      assert.deepEqual(
        page.body.data.map((c: any) => [c.title, c.country.title]),
        [['Osh', 'Kyrgyzstan']],
      );
      assert.equal(page.body.total, 2);
    });

    it('GET /city/{id} reads a city, null when missing, 400 when malformed', async () => {
      const res = await get(`/city/${w.osh.id}?withCountry=true`);
      assert.equal(res.body.title, 'Osh');
      assert.equal(res.body.country.id, w.country.id);
      assert.equal((await get('/city/zzzzzzzzzzzzzzzzzzzzzzzz')).text, 'null');
      assert.equal((await get('/city/Osh!')).status, 400);
    });

    it('GET /district/list lists active districts, by city, paged only with both parameters', async () => {
      const all = await get('/district/list');
      assert.deepEqual(
        all.body.data.map((d: any) => d.title),
        ['Center', 'Osh Center', 'South'],
      );
      const bishkek = await get(`/district/list?cityId=${w.bishkek.id}`);
      assert.deepEqual(
        bishkek.body.data.map((d: any) => d.title),
        ['Center', 'South'],
      );
      const paged = await get(`/district/list?cityId=${w.bishkek.id}&page=1&pageSize=1`);
      assert.deepEqual(paged.body, { total: 2, data: [paged.body.data[0]] });
      assert.deepEqual(Object.keys(paged.body.data[0]).sort(), [
        'cityId',
        'createdAt',
        'id',
        'isActive',
        'title',
        'updatedAt',
      ]);
      assert.equal((await get('/district/list?cityId=bad-id')).status, 400);
    });

    it('all directory endpoints need the API key', async () => {
      for (const path of ['/country', '/city', `/city/${w.osh.id}`, '/district/list']) {
        assert.equal((await cloud.request('GET', `${BASE}${path}`)).status, 401, path);
      }
    });
  });
}
