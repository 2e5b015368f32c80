import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { ManualClock } from '../../shared/clock.ts';

const BASE = '/api/v1/logistic-company/api-key';

for (const dialect of DIALECTS) {
  describe(`platform API keys (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    let admin: string;
    let otherAdmin: string;
    const clock = new ManualClock('2026-03-01T09:00:00.000Z');
    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
      const token = async (email: string) =>
        (await cloud.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken;
      admin = await token('admin@silkroad.example');
      otherAdmin = await token('admin@osh.example');
    });
    after(() => cloud.stop());

    describe('POST /create', () => {
      it("creates a key of the administrator's company that works on the integrations at once", async () => {
        clock.advance(1000);
        const res = await cloud.request('POST', `${BASE}/create`, {
          token: admin,
          body: { title: 'warehouse scanner' },
        });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ['companyId', 'createdAt', 'id', 'key', 'title', 'updatedAt']);
        assert.deepEqual(
          [res.body.title, res.body.companyId, typeof res.body.id],
          ['warehouse scanner', w.logist.id, 'number'],
        );
        const call = await cloud.request('GET', '/api/v1/integrations/no-such-route', {
          headers: { 'x-api-token': res.body.key },
        });
        assert.equal(call.status, 404, 'authenticated, then no such route');
      });

      it('400 for a missing or empty title', async () => {
        for (const body of [{}, { title: '' }, { title: 7 }]) {
          const res = await cloud.request('POST', `${BASE}/create`, { token: admin, body });
          assert.deepEqual([res.status, res.body.code], [400, 'FST_ERR_VALIDATION'], JSON.stringify(body));
        }
      });
    });

    describe('GET /list', () => {
      it('pages of one by default, newest first, with the key values and the total', async () => {
        const res = await cloud.request('GET', `${BASE}/list`, { token: admin });
        assert.equal(res.body.total, 2);
        assert.equal(res.body.data.length, 1);
        assert.equal(res.body.data[0].title, 'warehouse scanner');
        const all = await cloud.request('GET', `${BASE}/list?page=1&pageSize=10`, { token: admin });
        assert.deepEqual(all.body.data.map((k: any) => k.key).sort(), [w.keys.logist.key, res.body.data[0].key].sort());
        const second = await cloud.request('GET', `${BASE}/list?page=2`, { token: admin });
        assert.equal(second.body.data[0].key, w.keys.logist.key);
      });

      it("shows only the company's own keys", async () => {
        const res = await cloud.request('GET', `${BASE}/list?pageSize=50`, { token: otherAdmin });
        assert.deepEqual(
          res.body.data.map((k: any) => k.key),
          [w.keys.otherLogist.key],
        );
      });

      it('400 for page or pageSize below 1 or not whole numbers', async () => {
        const res = await cloud.request('GET', `${BASE}/list?page=0&pageSize=x`, { token: admin });
        assert.equal(res.status, 400);
        assert.equal(res.body.message, 'querystring/page must be >= 1, querystring/pageSize must be integer');
      });
    });

    describe('DELETE /{id}', () => {
      it("406 NOT_ACCEPTABLE for another company's key, which keeps working", async () => {
        const res = await cloud.request('DELETE', `${BASE}/${w.keys.logist.id}`, { token: otherAdmin });
        assert.deepEqual(res.body, { statusCode: 406, error: 'Not Acceptable', message: 'NOT_ACCEPTABLE' });
        assert.equal(
          (await cloud.request('GET', '/api/v1/integrations/x', { headers: { 'x-api-token': w.keys.logist.key } }))
            .status,
          404,
        );
      });

      it("deletes with the spec's message, then 404 NOT_FOUND", async () => {
        const made = (await cloud.request('POST', `${BASE}/create`, { token: admin, body: { title: 'old' } })).body;
        const res = await cloud.request('DELETE', `${BASE}/${made.id}`, { token: admin });
        assert.deepEqual([res.status, res.body], [200, { message: 'api key deleted' }]);
        const again = await cloud.request('DELETE', `${BASE}/${made.id}`, { token: admin });
        assert.deepEqual(again.body, { statusCode: 404, error: 'Not Found', message: 'NOT_FOUND' });
        // Known keys are cached for 5 s; past that a deleted key is refused.
        clock.advance(6000);
        assert.equal(
          (await cloud.request('GET', '/api/v1/integrations/x', { headers: { 'x-api-token': made.key } })).status,
          401,
        );
      });

      it('400 for an id that is not an integer >= 1', async () => {
        for (const id of ['0', 'abc', '1.5']) {
          const res = await cloud.request('DELETE', `${BASE}/${id}`, { token: admin });
          assert.deepEqual([res.status, res.body.code], [400, 'FST_ERR_VALIDATION'], id);
        }
      });
    });
  });
}
