import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';

for (const dialect of DIALECTS) {
  describe(`public locker endpoints (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    before(async () => {
      cloud = await startTestApp(dialect);
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(() => cloud.stop());

    it('GET /api/v1/open-api/postomat/list needs no key and behaves like the authenticated list', async () => {
      const res = await cloud.request(
        'GET',
        `/api/v1/open-api/postomat/list?latitude=${w.here.lat}&longitude=${w.here.lng}&withCity=true&page=1&pageSize=2`,
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.total, 3);
      assert.deepEqual(
        res.body.data.map((p: any) => [p.title, p.city.title]),
        [
          ['Zeta Mall', 'Bishkek'],
          ['Beta Station', 'Bishkek'],
        ],
      );
      assert.ok(res.body.data[0].distance < res.body.data[1].distance);
      const byCity = await cloud.request('GET', `/api/v1/open-api/postomat/list?cityId=${w.osh.id}`);
      assert.deepEqual(
        byCity.body.data.map((p: any) => p.title),
        ['Alpha Bazaar'],
      );
      assert.equal(
        (await cloud.request('GET', '/api/v1/open-api/postomat/list?page=zero&pageSize=1')).body.message,
        'querystring/page must be integer',
      );
    });

    it('GET /api/v1/public/postomat/{shortId} reads a locker, 404 POSTOMAT_NOT_FOUND when missing', async () => {
      const res = await cloud.request('GET', '/api/v1/public/postomat/ZETA01');
      assert.equal(res.status, 200);
      assert.equal(res.body.id, w.near.id);
      const missing = await cloud.request('GET', '/api/v1/public/postomat/NOPE99');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { statusCode: 404, error: 'Not Found', message: 'POSTOMAT_NOT_FOUND' });
    });

    it('GET /api/v1/public/postomat/map/{shortId} redirects to a map at the locker', async () => {
      const res = await cloud.request('GET', '/api/v1/public/postomat/map/ZETA01');
      assert.equal(res.status, 302);
      const location = res.headers.get('location')!;
      assert.ok(location.includes('42.875') && location.includes('74.57'), location);
    });

    it('the map link is 404 POSTOMAT_NOT_FOUND for a missing locker and for one without coordinates', async () => {
      for (const shortId of ['NOPE99', 'MYST01']) {
        const res = await cloud.request('GET', `/api/v1/public/postomat/map/${shortId}`);
        assert.equal(res.status, 404);
        assert.equal(res.body.message, 'POSTOMAT_NOT_FOUND');
      }
    });

    it('unknown routes answer 404 in the Fastify shape', async () => {
      const res = await cloud.request('GET', '/api/v1/nothing-here');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, {
        message: 'Route GET:/api/v1/nothing-here not found',
        error: 'Not Found',
        statusCode: 404,
      });
    });
  });
}
