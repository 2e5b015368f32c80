/**
 * Issue 16 point 3: a NUL byte (or another control character) in any string that reaches a text
 * column is refused with the spec's 400 at validation, the same on both databases; it was a 500
 * on PostgreSQL ("invalid byte sequence for encoding UTF8: 0x00") and a stored NUL on SQLite.
 * Free-text fields that hold documents keep tab and line breaks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud, type TestResponse } from '../helpers/cloud.ts';
import { seedMarketWorld, type MarketWorld, M } from '../helpers/market-world.ts';
import { PASSWORD } from '../helpers/platform-world.ts';
import { TEXT_MAX } from '../../cloud/http/text.ts';

const L = '/api/v1/integration/company';
const I = '/api/v1/integrations';

function assertRefused(res: TestResponse, part: string, text: RegExp) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.code, 'FST_ERR_VALIDATION');
  assert.equal(res.body.error, 'Bad Request');
  assert.match(res.body.message, new RegExp(`^${part}.*${text.source}`), res.body.message);
}

for (const dialect of DIALECTS) {
  describe(`control characters and lengths of request strings (${dialect.name})`, () => {
    let cloud: TestCloud;
    let world: MarketWorld;
    let admin: string;

    before(async () => {
      cloud = await startTestCloud(dialect);
      world = await seedMarketWorld(cloud);
      admin = (
        await cloud.request('POST', '/api/v1/auth/login', { body: { email: world.w.admin.email, password: PASSWORD } })
      ).body.accessToken;
    });
    after(() => cloud?.stop());

    const logist = () => ({ 'x-api-token': world.w.keys.logist.key });
    const market = () => ({ 'x-api-token': world.keys.market });
    const order = (extra: Record<string, unknown>) =>
      cloud.request('POST', `${L}/order/create`, {
        token: world.lw.companyA.key,
        body: { toUserPhone: '+996700000001', postomatId: world.lw.near.id, sendMessage: false, ...extra },
      });

    it('refuses NUL in path params, unauthenticated or not', async () => {
      assertRefused(await cloud.request('GET', '/api/v1/public/postomat/%00'), 'params/shortId', /control characters/);
      assertRefused(
        await cloud.request('GET', '/api/v1/public/postomat/map/a%00b'),
        'params/shortId',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/postomat/order/%00`, { headers: market() }),
        'params/id',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/postomat/%00`, { headers: market() }),
        'params/id',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${M}/parcel/track-code/%00`, { headers: market() }),
        'params/trackCode',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${M}/order/%01`, { headers: market() }),
        'params/id',
        /control characters/,
      );
    });

    it('refuses NUL in the search and phone queries', async () => {
      assertRefused(
        await cloud.request('GET', `${I}/client/search-by-code?search=SRL%00`, { headers: logist() }),
        'querystring/search',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/logistic-company/supplier/by-phone?phone=%2B996%00`, { headers: logist() }),
        'querystring/phone',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/logistic-company/parcel/list?search=%00`, { headers: logist() }),
        'querystring/search',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/logistic-company/cargo/list?search=a%1Bb`, { headers: logist() }),
        'querystring/search',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/logistic-company/supplier/${world.w.supplier.id}/parcels?search=%00`, {
          headers: logist(),
        }),
        'querystring/search',
        /control characters/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/postomat/list?page=1&pageSize=1&cityId=%00`, { headers: market() }),
        'querystring/cityId',
        /control characters/,
      );
    });

    it('refuses NUL in bodies: customData, API key title, webhook url, apiKey and payloadTemplate', async () => {
      assertRefused(
        await order({ customData: 'ref\u0000' }),
        'body/customData',
        /control characters other than tab and line breaks/,
      );
      const platformOrder = await cloud.request('POST', `${I}/postomat/order/create`, {
        headers: market(),
        body: { toUserPhone: '+996700000001', postomatId: world.lw.near.id, weight: 1, days: 1, customData: '\u0000' },
      });
      assertRefused(platformOrder, 'body/customData', /control characters/);
      assertRefused(
        await cloud.request('POST', '/api/v1/logistic-company/api-key/create', {
          token: admin,
          body: { title: 'a\u0000' },
        }),
        'body/title',
        /control characters/,
      );
      const hook = (body: Record<string, unknown>) =>
        cloud.request('POST', '/api/v1/logistic-company/webhook/create', {
          token: admin,
          body: { type: 'CARGO', url: 'http://127.0.0.1:9/h', ...body },
        });
      assertRefused(await hook({ url: 'http://127.0.0.1:9/h\u0000' }), 'body/url', /control characters/);
      assertRefused(await hook({ apiKey: 'k\u0000' }), 'body/apiKey', /control characters/);
      assertRefused(await hook({ apiKey: 'k\n' }), 'body/apiKey', /must NOT contain control characters$/);
      assertRefused(await hook({ payloadTemplate: '{"a":"\u0000"}' }), 'body/payloadTemplate', /control characters/);
      const party = {
        name: 'A\u0000',
        phone: '+996700100001',
        address: 'Chui 1',
        country: world.w.kg.id,
        city: world.w.bishkek.id,
      };
      const parcel = await cloud.request('POST', `${M}/parcel/create`, {
        headers: { ...market(), 'Idempotency-Key': 'nul-1' },
        body: {
          deliveryMethod: 'PICKUP',
          warehouseId: world.w.pvz.id,
          weight: 1,
          currency: 'KGS',
          receiver: party,
          sender: { ...party, name: 'B', address: '\u0007' },
        },
      });
      assertRefused(
        parcel,
        'body/receiver/name',
        /control characters.*body\/sender\/address must NOT contain control characters/,
      );
      assert.match(parcel.body.message, /, /, 'platform messages are comma-separated');
    });

    it('refuses unpaired surrogates and C1 controls, keeps paired ones (emoji) as sent', async () => {
      assertRefused(await order({ customData: 'x\ud800y' }), 'body/customData', /unpaired surrogates/);
      assertRefused(await order({ customData: 'x\u0085' }), 'body/customData', /control characters/);
      const ok = await order({ customData: '📦 Ёжик\tref\r\n{"a":1}' });
      assert.equal(ok.status, 200, ok.text);
      const read = await cloud.request('GET', `${L}/order/${ok.body.id}`, { token: world.lw.companyA.key });
      assert.equal(read.body.customData, '📦 Ёжик\tref\r\n{"a":1}');
    });

    it('refuses strings over their length, by the same rule on both databases', async () => {
      assertRefused(
        await order({ customData: 'x'.repeat(TEXT_MAX.customData + 1) }),
        'body/customData',
        new RegExp(`must NOT have more than ${TEXT_MAX.customData} characters`),
      );
      assert.equal((await order({ customData: 'x'.repeat(TEXT_MAX.customData) })).status, 200);
      assertRefused(
        await cloud.request('POST', '/api/v1/logistic-company/api-key/create', {
          token: admin,
          body: { title: 't'.repeat(TEXT_MAX.title + 1) },
        }),
        'body/title',
        /must NOT have more than/,
      );
      assertRefused(
        await cloud.request('GET', `${I}/client/search-by-code?search=${'a'.repeat(TEXT_MAX.search + 1)}`, {
          headers: logist(),
        }),
        'querystring/search',
        /must NOT have more than/,
      );
    });
  });
}
