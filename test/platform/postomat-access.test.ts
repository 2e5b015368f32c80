import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { setLockerAccess } from '../../cloud/services/platform/companies.ts';
import { LOCKER_ACCESS_OFF } from '../../cloud/platform-api/locker-side.ts';

const P = '/api/v1/integrations/postomat';
const LOCKER = '/api/v1/integration/company';
const PHONE = '+996555700700';

for (const dialect of DIALECTS) {
  describe(`locker access through the platform (${dialect.name})`, () => {
    let cloud: TestApp;
    let lw: LockerWorld;
    let w: PlatformWorld;
    /** a Locker API key of the market's own locker company: the same orders seen from the Locker API */
    let lockerKey: string;
    /** the courier company: linked to a locker company, access switched off */
    let switchedOff: string;
    /** the warehouse company: linked to a locker company whose balance cannot pay */
    let broke: string;
    before(async () => {
      cloud = await startTestApp(dialect);
      lw = await seedLockerWorld(cloud.storage.db);
      w = await seedPlatformWorld(cloud.storage.db);
      lockerKey = (await createLockerApiKey(cloud.storage.db, w.lockerCompany.id, undefined, new Date())).key;
      await setLockerAccess(
        cloud.storage.db,
        w.courier.id,
        { lockerCompanyId: lw.companyB.id, enabled: false },
        new Date(),
      );
      switchedOff = w.keys.courier.key;
      const poor = await createLockerCompany(
        cloud.storage.db,
        { title: 'Poor Lockers', orderPrice: 100, balance: 50 },
        new Date(),
      );
      await setLockerAccess(
        cloud.storage.db,
        w.warehouseCo.id,
        { lockerCompanyId: poor.id, enabled: true },
        new Date(),
      );
      broke = w.keys.warehouse.key;
    });
    after(() => cloud.stop());

    const market = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      cloud.request(method, `${P}${path}`, { body, headers: { 'x-api-token': w.keys.market.key, ...headers } });
    const locker = (path: string) => cloud.request('GET', `${LOCKER}${path}`, { token: lockerKey });
    const create = async (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
      const res = await market(
        'POST',
        '/order/create',
        { toUserPhone: PHONE, postomatId: lw.near.id, weight: 1.5, days: 2, ...extra },
        headers,
      );
      assert.equal(res.status, 201, res.text);
      return res.body;
    };
    const is502 = (res: { status: number; body: any }, message: string) => {
      assert.deepEqual(res.body, { statusCode: 502, error: 'Bad Gateway', message });
    };

    describe('access', () => {
      const every = () => [
        ['GET', '/list?page=1&pageSize=5'],
        ['GET', `/${lw.near.id}`],
        ['GET', '/city?page=1&pageSize=5'],
        ['GET', `/city/${lw.bishkek.id}`],
        ['POST', '/order/create'],
        ['GET', '/order/list?page=1&pageSize=5'],
        ['GET', '/order/abc'],
        ['GET', '/order/abc/down-code'],
        ['GET', '/order/abc/up-code'],
        ['GET', '/order/abc/subtract-code'],
      ];

      it('502 on every endpoint for a company without a locker link, and for one whose access is switched off', async () => {
        for (const key of [w.keys.logist.key, switchedOff]) {
          for (const [method, path] of every()) {
            const body =
              method === 'POST' ? { toUserPhone: PHONE, postomatId: lw.near.id, weight: 1, days: 1 } : undefined;
            const res = await cloud.request(method, `${P}${path}`, { body, headers: { 'x-api-token': key } });
            is502(res, LOCKER_ACCESS_OFF);
          }
        }
      });

      it('switching access off takes effect at once, and on again restores it', async () => {
        await setLockerAccess(cloud.storage.db, w.market.id, { enabled: false }, new Date());
        is502(await market('GET', '/list?page=1&pageSize=1'), LOCKER_ACCESS_OFF);
        await setLockerAccess(cloud.storage.db, w.market.id, { enabled: true }, new Date());
        assert.equal((await market('GET', '/list?page=1&pageSize=1')).status, 200);
      });

      it('the platform validates its own rules first: 400, comma-separated, even without access', async () => {
        const res = await cloud.request('GET', `${P}/list?pageSize=501`, {
          headers: { 'x-api-token': w.keys.logist.key },
        });
        assert.deepEqual(res.body, {
          statusCode: 400,
          error: 'Bad Request',
          code: 'FST_ERR_VALIDATION',
          message: "querystring must have required property 'page', querystring/pageSize must be <= 500",
        });
      });

      it('403 TOKEN_NOT_VALID without a key, 401 UNAUTHORIZED with an unknown one', async () => {
        assert.equal((await cloud.request('GET', `${P}/list?page=1&pageSize=1`)).body.message, 'TOKEN_NOT_VALID');
        const res = await cloud.request('GET', `${P}/list?page=1&pageSize=1`, { headers: { 'x-api-token': 'nope' } });
        assert.deepEqual([res.status, res.body.message], [401, 'UNAUTHORIZED']);
      });
    });

    describe('lockers and cities', () => {
      it("GET /list: the Locker API's answer; page and pageSize (1-500) required", async () => {
        for (const q of [
          'page=1&pageSize=2&withCity=true&withDistrict=true',
          `page=1&pageSize=500&cityId=${lw.bishkek.id}`,
          `page=2&pageSize=1&ids=${lw.far.id}&ids=${lw.mid.id}`,
        ]) {
          const res = await market('GET', `/list?${q}`);
          assert.equal(res.status, 200);
          assert.deepEqual(res.body, (await locker(`/postomat/list?${q}`)).body, q);
        }
        const all = await market('GET', '/list?page=1&pageSize=10');
        assert.deepEqual(
          all.body.data.map((p: any) => p.title),
          ['Alpha Bazaar', 'Beta Station', 'Mystery Box', 'Zeta Mall'],
        );
        for (const q of ['pageSize=5', 'page=1', 'page=0&pageSize=5', 'page=1&pageSize=0']) {
          assert.equal((await market('GET', `/list?${q}`)).status, 400, q);
        }
      });

      it('GET /list with latitude and longitude: nearest first with distance in km, lockers without coordinates left out', async () => {
        const res = await market('GET', `/list?page=1&pageSize=10&latitude=${lw.here.lat}&longitude=${lw.here.lng}`);
        assert.deepEqual(
          res.body.data.map((p: any) => p.title),
          ['Zeta Mall', 'Beta Station', 'Alpha Bazaar'],
        );
        assert.equal(res.body.total, 3);
        assert.ok(
          res.body.data[0].distance < 0.1 && res.body.data[2].distance > 200,
          JSON.stringify(res.body.data.map((p: any) => p.distance)),
        );
      });

      it('GET /{id}: the locker with city, cells and boards; a missing or malformed id is 502 POSTOMAT_NOT_FOUND', async () => {
        const q = 'withCity=true&withCells=true&withBoards=true';
        const res = await market('GET', `/${lw.near.id}?${q}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, (await locker(`/postomat/${lw.near.id}?${q}`)).body);
        assert.equal(res.body.cells.length, 4);
        is502(await market('GET', '/zz000000000000000000000000'), 'POSTOMAT_NOT_FOUND');
        is502(await market('GET', '/NOT-A-CUID'), 'POSTOMAT_NOT_FOUND');
      });

      it('GET /city and /city/{id}: the Locker API\'s cities; a missing city is 502 "City not found"', async () => {
        const list = await market('GET', '/city?page=1&pageSize=1&withCountry=true');
        assert.deepEqual(list.body, (await locker('/city?page=1&pageSize=1&withCountry=true')).body);
        assert.deepEqual(
          [list.body.total, list.body.data[0].title, list.body.data[0].country.title],
          [2, 'Bishkek', 'Kyrgyzstan'],
        );
        assert.equal((await market('GET', '/city?page=1')).status, 400);
        const one = await market('GET', `/city/${lw.osh.id}?withCountry=true`);
        assert.deepEqual(one.body, (await locker(`/city/${lw.osh.id}?withCountry=true`)).body);
        is502(await market('GET', '/city/zz000000000000000000000000'), 'City not found');
      });
    });

    describe('POST /order/create', () => {
      it('201 with the order of the linked locker company; SMS on, as a locker order', async () => {
        const order = await create({ customData: 'ref-1' });
        assert.equal(order.companyId, w.lockerCompany.id);
        assert.deepEqual(
          [order.postomatId, order.weight, order.days, order.customData, order.sendMessage],
          [lw.near.id, 1.5, 2, 'ref-1', true],
        );
        assert.equal(order.passwords, undefined, 'the creation answer carries no codes');
        const read = await locker(`/order/${order.id}?withCurrentStatus=true`);
        assert.deepEqual(
          [read.status, read.body.currentStatus.type],
          [200, 'CREATED'],
          'an ordinary order of the locker company',
        );
      });

      it('Idempotency-Key is accepted and does not de-duplicate', async () => {
        const a = await create({}, { 'Idempotency-Key': 'same-key' });
        const b = await create({}, { 'Idempotency-Key': 'same-key' });
        assert.notEqual(a.id, b.id);
      });

      it("400 for the platform's rules: phone length >= 5, weight >= 0.001, days >= 1, all required", async () => {
        const res = await market('POST', '/order/create', { toUserPhone: '+996', weight: 0.0005, days: 0 });
        assert.equal(res.status, 400);
        assert.equal(
          res.body.message,
          [
            'body/toUserPhone must NOT have fewer than 5 characters',
            "body must have required property 'postomatId'",
            'body/weight must be >= 0.001',
            'body/days must be >= 1',
          ].join(', '),
        );
        const missing = await market('POST', '/order/create', {});
        assert.deepEqual(missing.body.message.split(', ').length, 4, missing.body.message);
      });

      it('502 for what the locker side refuses: its phone format, a malformed or unknown locker, a balance that cannot pay', async () => {
        is502(
          await market('POST', '/order/create', {
            toUserPhone: '0555 123 456',
            postomatId: lw.near.id,
            weight: 1,
            days: 1,
          }),
          'body/toUserPhone must match pattern "^\\+\\d+$"',
        );
        is502(
          await market('POST', '/order/create', { toUserPhone: PHONE, postomatId: 'X1', weight: 1, days: 1 }),
          'body/postomatId must match format "cuid2"',
        );
        is502(
          await market('POST', '/order/create', {
            toUserPhone: PHONE,
            postomatId: 'zz000000000000000000000000',
            weight: 1,
            days: 1,
          }),
          'POSTOMAT_NOT_FOUND',
        );
        is502(
          await market('POST', '/order/create', { toUserPhone: PHONE, postomatId: lw.inactive.id, weight: 1, days: 1 }),
          'POSTOMAT_NOT_FOUND',
        );
        const res = await cloud.request('POST', `${P}/order/create`, {
          headers: { 'x-api-token': broke },
          body: { toUserPhone: PHONE, postomatId: lw.near.id, weight: 1, days: 1, pay: true },
        });
        is502(res, 'INSUFFICIENT_FUNDS');
      });
    });

    describe('orders', () => {
      it("GET /order/list: the Locker API's page of the locker company's orders; page and pageSize (1-500) required", async () => {
        const placed = await create();
        await placeOrder(cloud.storage, placed.id, lw.near.cells[0].id, cloud.clock.now());
        for (const q of [
          'page=1&pageSize=3&withCurrentStatus=true&withToUser=true&withCell=true',
          'page=1&pageSize=500&status=DELIVERED&withPostomat=true&withStatuses=true&withRent=true&withPasswords=true',
        ]) {
          const res = await market('GET', `/order/list?${q}`);
          assert.equal(res.status, 200);
          assert.deepEqual(res.body, (await locker(`/order/list?${q}`)).body, q);
        }
        const delivered = await market('GET', '/order/list?page=1&pageSize=10&status=DELIVERED');
        assert.deepEqual(
          delivered.body.data.map((o: any) => o.id),
          [placed.id],
        );
        for (const q of ['page=1', 'pageSize=10', 'page=1&pageSize=501', 'page=1&pageSize=5&status=LOST']) {
          assert.equal((await market('GET', `/order/list?${q}`)).status, 400, q);
        }
      });

      it("GET /order/{id} with the flags: the Locker API's order, passwords only the DOWN code", async () => {
        const order = await create();
        const q = 'withToUser=true&withPostomat=true&withCurrentStatus=true&withStatuses=true&withPasswords=true';
        const res = await market('GET', `/order/${order.id}?${q}`);
        assert.deepEqual(res.body, (await locker(`/order/${order.id}?${q}`)).body);
        assert.deepEqual(
          res.body.passwords.map((p: any) => p.type),
          ['DOWN'],
        );
        assert.equal(res.body.toUser.phone, PHONE);
      });

      it('codes: DOWN, UP and SUBTRACT as on the Locker API', async () => {
        const order = await create();
        const types = [];
        for (const path of ['down-code', 'up-code', 'subtract-code']) {
          const res = await market('GET', `/order/${order.id}/${path}`);
          assert.deepEqual(res.body, (await locker(`/order/${order.id}/${path}`)).body);
          assert.match(res.body.password, /^\d{4}$/);
          types.push(res.body.type);
        }
        assert.deepEqual(types, ['DOWN', 'UP', 'SUBTRACT']);
      });

      it("another company's order, or none, is 502 ORDER_NOT_FOUND on the read and every code", async () => {
        const theirs = (
          await cloud.request('POST', `${LOCKER}/order/create`, {
            token: lw.companyA.key,
            body: { toUserPhone: PHONE, postomatId: lw.near.id, sendMessage: false },
          })
        ).body;
        for (const id of [theirs.id, 'zz000000000000000000000000', 'not a cuid']) {
          for (const suffix of ['', '/down-code', '/up-code', '/subtract-code']) {
            is502(await market('GET', `/order/${encodeURIComponent(id)}${suffix}`), 'ORDER_NOT_FOUND');
          }
        }
        const list = await market('GET', '/order/list?page=1&pageSize=500');
        assert.ok(!list.body.data.some((o: any) => o.id === theirs.id));
      });
    });
  });
}
