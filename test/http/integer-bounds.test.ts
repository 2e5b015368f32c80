/**
 * Issue 16 point 4 (schema bounds): an id that fits JavaScript but not PostgreSQL's int4 was a
 * 500 there; page × pageSize beyond 2^63 was a 500 on both databases on every list whose
 * pageSize has no maximum. Ids are refused with the spec's 400; page and pageSize are bounded to
 * int4, which keeps the offset a valid integer: the largest page of the largest size answers
 * an empty page. Also: requests the router or the body parser cannot read are 400s, not 500s.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { DIALECTS } from '../helpers/storage.ts';
import type { TestResponse } from '../helpers/cloud.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedMarketWorld, type MarketWorld, M } from '../helpers/market-world.ts';
import { PASSWORD } from '../helpers/platform-world.ts';

const L = '/api/v1/integration/company';
const I = '/api/v1/integrations';
const TOO_BIG = 2 ** 31;
const MAX = 2 ** 31 - 1;

function assertValidation(res: TestResponse, message: string) {
  assert.equal(res.status, 400, res.text);
  assert.deepEqual(res.body, { statusCode: 400, error: 'Bad Request', code: 'FST_ERR_VALIDATION', message });
}

for (const dialect of DIALECTS) {
  describe(`integer bounds of request fields (${dialect.name})`, () => {
    let cloud: TestApp;
    let world: MarketWorld;
    let admin: string;

    before(async () => {
      cloud = await startTestApp(dialect);
      world = await seedMarketWorld(cloud);
      admin = (
        await cloud.request('POST', '/api/v1/auth/login', { body: { email: world.w.admin.email, password: PASSWORD } })
      ).body.accessToken;
    });
    after(() => cloud?.stop());

    const market = () => ({ 'x-api-token': world.keys.market });
    const logist = () => ({ 'x-api-token': world.w.keys.logist.key });

    it('refuses ids beyond int4 in paths with a 400 naming the bound', async () => {
      const message = `params/id must be <= ${MAX}`;
      assertValidation(
        await cloud.request('DELETE', `/api/v1/logistic-company/api-key/${TOO_BIG}`, { token: admin }),
        message,
      );
      assertValidation(
        await cloud.request('PATCH', `/api/v1/logistic-company/webhook/${TOO_BIG}`, {
          token: admin,
          body: { url: 'http://127.0.0.1:9/x' },
        }),
        message,
      );
      assertValidation(
        await cloud.request('DELETE', `/api/v1/logistic-company/webhook/${TOO_BIG}`, { token: admin }),
        message,
      );
      assertValidation(await cloud.request('GET', `${M}/opp/${TOO_BIG}`, { headers: market() }), message);
      assertValidation(await cloud.request('GET', `${M}/opp/city/${TOO_BIG}`, { headers: market() }), message);
      assertValidation(await cloud.request('GET', `${I}/client/${TOO_BIG}`, { headers: logist() }), message);
      // The largest int4 is a valid id that names nothing.
      assert.equal(
        (await cloud.request('DELETE', `/api/v1/logistic-company/api-key/${MAX}`, { token: admin })).status,
        404,
      );
      const city = await cloud.request('GET', `${M}/opp/city/${MAX}`, { headers: market() });
      assert.equal(city.status, 200);
      assert.equal(city.body, null);
    });

    it('refuses ids beyond int4 in queries and bodies', async () => {
      assertValidation(
        await cloud.request('GET', `${M}/opp/list?page=1&pageSize=10&cityId=${TOO_BIG}`, { headers: market() }),
        `querystring/cityId must be <= ${MAX}`,
      );
      assertValidation(
        await cloud.request('GET', `${M}/opp/list?page=1&pageSize=10&ids=1&ids=${TOO_BIG}`, { headers: market() }),
        `querystring/ids/1 must be <= ${MAX}`,
      );
      assertValidation(
        await cloud.request('GET', `${I}/logistic-company/parcel/list?codes=${-TOO_BIG - 1}`, { headers: logist() }),
        `querystring/codes/0 must be >= ${-TOO_BIG}`,
      );
      const redirect = await cloud.request('PUT', `${M}/parcel/track-code/NONE/redirect`, {
        headers: market(),
        body: { toWarehouseId: TOO_BIG },
      });
      assertValidation(redirect, `body/toWarehouseId must be <= ${MAX}`);
    });

    // Every list whose pageSize has no maximum in the spec, and one with its 500 maximum.
    const lists: Array<[string, string, () => Record<string, string>]> = [
      ['locker orders', `${L}/order/list`, () => ({ authorization: `Bearer ${world.lw.companyA.key}` })],
      ['locker cities', `${L}/city`, () => ({ authorization: `Bearer ${world.lw.companyA.key}` })],
      ['locker districts', `${L}/district/list`, () => ({ authorization: `Bearer ${world.lw.companyA.key}` })],
      ['lockers', `${L}/postomat/list`, () => ({ authorization: `Bearer ${world.lw.companyA.key}` })],
      ['public lockers', '/api/v1/open-api/postomat/list', () => ({})],
      ['API keys', '/api/v1/logistic-company/api-key/list', () => ({ authorization: `Bearer ${admin}` })],
      ['webhooks', '/api/v1/logistic-company/webhook/list', () => ({ authorization: `Bearer ${admin}` })],
      ['parcels', `${I}/logistic-company/parcel/list`, logist],
      ['cargo', `${I}/logistic-company/cargo/list`, logist],
      ['supplier parcels', `${I}/logistic-company/supplier/SUPPLIER/parcels`, logist],
    ];

    for (const [name, path, headers] of lists) {
      it(`${name}: the largest page of the largest size is an empty page; beyond int4 is a 400`, async () => {
        const url = path.replace('SUPPLIER', String(world.w.supplier.id));
        const last = await cloud.request('GET', `${url}?page=${MAX}&pageSize=${MAX}`, { headers: headers() });
        assert.equal(last.status, 200, last.text);
        assert.deepEqual(last.body.data, []);
        assert.equal(typeof last.body.total, 'number');
        assertValidation(
          await cloud.request('GET', `${url}?page=${TOO_BIG}&pageSize=10`, { headers: headers() }),
          `querystring/page must be <= ${MAX}`,
        );
        assertValidation(
          await cloud.request('GET', `${url}?page=1&pageSize=${2 ** 63}`, { headers: headers() }),
          `querystring/pageSize must be <= ${MAX}`,
        );
      });
    }

    it('the platform lists keep their 1-500 page size, and their page bound', async () => {
      const last = await cloud.request('GET', `${I}/postomat/order/list?page=${MAX}&pageSize=500`, {
        headers: market(),
      });
      assert.equal(last.status, 200, last.text);
      assert.deepEqual(last.body.data, []);
      assertValidation(
        await cloud.request('GET', `${M}/opp/city?page=${TOO_BIG}&pageSize=500`, { headers: market() }),
        `querystring/page must be <= ${MAX}`,
      );
    });
  });

  describe(`requests the router or the body parser cannot read (${dialect.name})`, () => {
    let cloud: TestApp;
    let key: string;
    before(async () => {
      cloud = await startTestApp(dialect);
      key = (await seedMarketWorld(cloud)).lw.companyA.key;
    });
    after(() => cloud?.stop());

    it('answers a path that is not valid percent-encoded UTF-8 with 400 FST_ERR_BAD_URL', async () => {
      for (const bad of ['%', '%zz', '%ED%A0%80', '%C0%80', '%FF']) {
        const res = await cloud.request('GET', `${L}/order/${bad}`, { token: key });
        assert.deepEqual(
          res.body,
          {
            statusCode: 400,
            error: 'Bad Request',
            code: 'FST_ERR_BAD_URL',
            message: 'Path is not a valid url component',
          },
          bad,
        );
      }
    });

    it('answers a compressed body that does not inflate with 400, a valid one as usual', async () => {
      const order = {
        toUserPhone: '+996700000001',
        postomatId: 'nosuchlocker1',
        sendMessage: false,
        customData: '\u0000',
      };
      const headers = { 'content-encoding': 'gzip', 'content-type': 'application/json' };
      const bad = await cloud.request('POST', `${L}/order/create`, { token: key, headers, rawBody: 'not gzip at all' });
      assert.deepEqual(bad.body, {
        statusCode: 400,
        error: 'Bad Request',
        code: 'FST_ERR_CTP_INVALID_BODY',
        message: 'Request body could not be read',
      });
      const res = await fetch(`${cloud.url}${L}/order/create`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${key}` },
        body: zlib.gzipSync(JSON.stringify(order)),
      });
      const body = await res.json();
      assert.equal(res.status, 400);
      assert.match(body.message, /body\/customData must NOT contain control characters/);
    });
  });
}
