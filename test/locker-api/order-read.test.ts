import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { finishOrder, placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import type { ManualClock } from '../../shared/clock.ts';

const BASE = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`order reads (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    let order: any;
    before(async () => {
      cloud = await startTestApp(dialect);
      w = await seedLockerWorld(cloud.storage.db);
      order = (
        await cloud.request('POST', `${BASE}/order/create`, {
          token: w.companyB.key,
          body: { toUserPhone: '+996555000111', postomatId: w.near.id, sendMessage: true },
        })
      ).body;
    });
    after(() => cloud.stop());
    const get = (path: string, token = w.companyB.key) => cloud.request('GET', `${BASE}${path}`, { token });

    describe('GET /order/{id}', () => {
      it('reads the order with passwords holding only the DOWN code', async () => {
        const res = await get(`/order/${order.id}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.id, order.id);
        assert.equal(res.body.passwords.length, 1);
        assert.equal(res.body.passwords[0].type, 'DOWN');
        const down = await get(`/order/${order.id}/down-code`);
        assert.equal(res.body.passwords[0].password, down.body.password);
        for (const key of ['toUser', 'cell', 'postomat', 'currentStatus', 'statuses', 'rent'])
          assert.equal(key in res.body, false, key);
      });

      it('withPasswords changes nothing: the UP code never appears in order reads', async () => {
        const up = await get(`/order/${order.id}/up-code`);
        const res = await get(`/order/${order.id}?withPasswords=true`);
        assert.deepEqual(
          res.body.passwords.map((p: any) => p.type),
          ['DOWN'],
        );
        assert.ok(res.body.passwords.every((p: any) => p.password !== up.body.password));
        const list = await get('/order/list?withPasswords=true');
        for (const o of list.body.data)
          assert.deepEqual(
            o.passwords.map((p: any) => p.type),
            ['DOWN'],
          );
      });

      it('adds each nested object its flag asks for', async () => {
        const res = await get(
          `/order/${order.id}?withToUser=true&withCell=true&withPostomat=true&withCurrentStatus=true&withStatuses=true&withRent=true`,
        );
        assert.equal(res.body.toUser.phone, '+996555000111');
        assert.equal(res.body.cell, null, 'no cell before placement');
        assert.equal(res.body.postomat.id, w.near.id);
        assert.equal(res.body.postomat.shortId, 'ZETA01');
        assert.equal(res.body.currentStatus.type, 'CREATED');
        assert.equal(res.body.currentStatus.id, res.body.currentStatusId);
        assert.deepEqual(
          res.body.statuses.map((s: any) => s.type),
          ['CREATED'],
        );
        assert.equal(res.body.rent, null);
      });

      it('false flags add nothing', async () => {
        const res = await get(`/order/${order.id}?withToUser=false&withStatuses=false`);
        assert.equal('toUser' in res.body, false);
        assert.equal('statuses' in res.body, false);
      });

      it('shows the cell with its postomat and the storage period after placement', async () => {
        const created = (
          await cloud.request('POST', `${BASE}/order/create`, {
            token: w.companyB.key,
            body: { toUserPhone: '+996555000112', postomatId: w.mid.id, sendMessage: false, days: 2 },
          })
        ).body;
        const at = new Date(cloud.clock.now().getTime() + 3_600_000);
        await placeOrder(cloud.storage, created.id, w.mid.cells[2].id, at);
        const res = await get(`/order/${created.id}?withCell=true&withStatuses=true&withCurrentStatus=true`);
        assert.equal(res.body.cellId, w.mid.cells[2].id);
        assert.equal(res.body.cell.id, w.mid.cells[2].id);
        assert.equal(res.body.cell.size, 'M');
        assert.equal(res.body.cell.postomat.id, w.mid.id);
        assert.equal(res.body.startDateTime, at.toISOString());
        assert.equal(res.body.endDateTime, new Date(at.getTime() + 2 * 86_400_000).toISOString());
        assert.deepEqual(
          res.body.statuses.map((s: any) => s.type),
          ['CREATED', 'DELIVERED'],
        );
        assert.equal(res.body.currentStatus.type, 'DELIVERED');
      });

      it("404 ORDER_NOT_FOUND for a missing order and for another company's", async () => {
        for (const res of [
          await get('/order/zzzzzzzzzzzzzzzzzzzzzzzz'),
          await get(`/order/${order.id}`, w.companyA.key),
        ]) {
          assert.equal(res.status, 404);
          assert.deepEqual(res.body, { statusCode: 404, error: 'Not Found', message: 'ORDER_NOT_FOUND' });
        }
      });

      it('400 for a malformed id and for a flag that is not a boolean', async () => {
        const bad = await get('/order/NOT_A_CUID');
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body, {
          statusCode: 400,
          error: 'Bad Request',
          message: 'params/id must match format "cuid2"',
          code: 'FST_ERR_VALIDATION',
        });
        const flag = await get(`/order/${order.id}?withCell=yes`);
        assert.equal(flag.status, 400);
        assert.equal(flag.body.message, 'querystring/withCell must be boolean');
      });
    });

    describe('GET /order/{id}/down-code, /up-code, /subtract-code', () => {
      for (const [path, type] of [
        ['down-code', 'DOWN'],
        ['up-code', 'UP'],
        ['subtract-code', 'SUBTRACT'],
      ]) {
        it(`/${path} answers the ${type} code object`, async () => {
          const res = await get(`/order/${order.id}/${path}`);
          assert.equal(res.status, 200);
          assert.deepEqual(Object.keys(res.body).sort(), [
            'createdAt',
            'id',
            'orderId',
            'password',
            'type',
            'updatedAt',
          ]);
          assert.equal(res.body.type, type);
          assert.equal(res.body.orderId, order.id);
        });
        it(`/${path}: 404 for another company, 400 for a malformed id, 401 without a key`, async () => {
          assert.equal((await get(`/order/${order.id}/${path}`, w.companyA.key)).body.message, 'ORDER_NOT_FOUND');
          assert.equal((await get(`/order/bad id/${path}`)).status, 400);
          assert.equal((await cloud.request('GET', `${BASE}/order/${order.id}/${path}`)).status, 401);
        });
      }
    });
  });

  describe(`GET /order/list (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    const ids: string[] = [];
    before(async () => {
      cloud = await startTestApp(dialect);
      w = await seedLockerWorld(cloud.storage.db);
      const clock = cloud.clock as ManualClock;
      clock.set('2026-05-01T00:00:00.000Z');
      // Prices that drift in binary floating point when summed: 0.1 + 0.2 + …
      const prices = [10, 20, 30, 10, 20, 30, 10];
      for (let i = 0; i < prices.length; i++) {
        await cloud.storage.db
          .updateTable('locker_company')
          .set({ orderPrice: prices[i], deliveryPrice: 7 })
          .where('id', '=', w.companyB.id)
          .execute();
        clock.advance(1000);
        const res = await cloud.request('POST', `${BASE}/order/create`, {
          token: w.companyB.key,
          body: { toUserPhone: `+99655510000${i}`, postomatId: w.near.id, sendMessage: false, days: 1 },
        });
        ids.push(res.body.id);
      }
      // Another company's orders must never show.
      await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyA.key,
        body: { toUserPhone: '+996555199999', postomatId: w.near.id, sendMessage: false },
      });
      // ids[0], ids[1] DELIVERED (1 day storage from 2026-05-01), ids[2] COMPLETED, ids[3] SUBTRACTED
      const at = new Date('2026-05-01T01:00:00.000Z');
      await placeOrder(cloud.storage, ids[0], w.near.cells[0].id, at);
      await placeOrder(cloud.storage, ids[1], w.near.cells[1].id, new Date('2026-05-03T00:00:00.000Z'));
      await placeOrder(cloud.storage, ids[2], w.near.cells[2].id, at);
      await finishOrder(cloud.storage, ids[2], 'COMPLETED', at);
      await placeOrder(cloud.storage, ids[3], w.near.cells[2].id, at);
      await finishOrder(cloud.storage, ids[3], 'SUBTRACTED', at);
      clock.set('2026-05-03T12:00:00.000Z'); // ids[0] expired, ids[1] not
    });
    after(() => cloud.stop());
    const list = (qs = '') => cloud.request('GET', `${BASE}/order/list${qs}`, { token: w.companyB.key });

    it("lists the company's orders newest first, 10 per page by default", async () => {
      const res = await list();
      assert.equal(res.status, 200);
      assert.equal(res.body.total, 7);
      assert.deepEqual(
        res.body.data.map((o: any) => o.id),
        [...ids].reverse(),
      );
      assert.ok(res.body.data.every((o: any) => o.companyId === w.companyB.id));
    });

    it('pages by page and pageSize, total counting the whole selection', async () => {
      const pages = await Promise.all([1, 2, 3, 4].map((p) => list(`?page=${p}&pageSize=3`)));
      assert.deepEqual(
        pages.map((p) => p.body.data.length),
        [3, 3, 1, 0],
      );
      assert.ok(pages.every((p) => p.body.total === 7));
      assert.deepEqual(
        pages.flatMap((p) => p.body.data.map((o: any) => o.id)),
        [...ids].reverse(),
      );
    });

    it('filters by current status', async () => {
      const delivered = await list('?status=DELIVERED');
      assert.equal(delivered.body.total, 2);
      assert.deepEqual(delivered.body.data.map((o: any) => o.id).sort(), [ids[0], ids[1]].sort());
      assert.deepEqual(
        (await list('?status=COMPLETED')).body.data.map((o: any) => o.id),
        [ids[2]],
      );
      assert.deepEqual(
        (await list('?status=SUBTRACTED')).body.data.map((o: any) => o.id),
        [ids[3]],
      );
      assert.equal((await list('?status=CREATED')).body.total, 3);
    });

    it('sums the whole selection exactly in aggregate._sum', async () => {
      const all = await list('?pageSize=1');
      assert.deepEqual(all.body.aggregate._sum, {
        price: 1.3,
        deliveryPrice: 0.49,
        paidAmount: 0,
        notPaidAmount: 1.79,
        promoCodeAmount: 0,
      });
      const created = await list('?status=CREATED');
      assert.deepEqual(created.body.aggregate._sum, {
        price: 0.6,
        deliveryPrice: 0.21,
        paidAmount: 0,
        notPaidAmount: 0.81,
        promoCodeAmount: 0,
      });
    });

    it('counts DELIVERED orders past their storage period in expiredAggregate', async () => {
      const res = await list();
      assert.deepEqual(res.body.expiredAggregate, {
        _sum: { price: 0.1, deliveryPrice: 0.07, paidAmount: 0, notPaidAmount: 0.17, promoCodeAmount: 0 },
        _count: 1,
      });
      assert.equal((await list('?status=DELIVERED')).body.expiredAggregate._count, 1);
      assert.equal(
        (await list('?status=CREATED')).body.expiredAggregate._count,
        0,
        'the expired set is part of the selection',
      );
    });

    it('adds nested objects to every item of the page', async () => {
      const res = await list('?status=DELIVERED&withCell=true&withToUser=true&withStatuses=true');
      for (const o of res.body.data) {
        assert.equal(o.cell.id, o.cellId);
        assert.equal(o.cell.postomat.id, w.near.id);
        assert.ok(o.toUser.phone.startsWith('+99655510000'));
        assert.deepEqual(
          o.statuses.map((s: any) => s.type),
          ['CREATED', 'DELIVERED'],
        );
      }
    });

    const bad: Array<[string, string]> = [
      ['?page=0', 'querystring/page must be >= 1'],
      ['?pageSize=0', 'querystring/pageSize must be >= 1'],
      ['?page=abc', 'querystring/page must be integer'],
      ['?page=1.5', 'querystring/page must be integer'],
      ['?status=LOST', 'querystring/status must be equal to one of the allowed values'],
      ['?withCell=1', 'querystring/withCell must be boolean'],
    ];
    for (const [qs, message] of bad) {
      it(`400 for ${qs}`, async () => {
        const res = await list(qs);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { statusCode: 400, error: 'Bad Request', message, code: 'FST_ERR_VALIDATION' });
      });
    }

    it('401 without a key', async () => {
      assert.equal((await cloud.request('GET', `${BASE}/order/list`)).status, 401);
    });

    it('expiredAggregate follows the clock past the next storage end, with no writes in between', async () => {
      assert.equal((await list()).body.expiredAggregate._count, 1);
      (cloud.clock as ManualClock).set('2026-05-04T00:00:01.000Z'); // ids[1] placed 05-03 for 1 day
      assert.equal((await list()).body.expiredAggregate._count, 2);
    });

    it('expiredAggregate follows changes to DELIVERED orders at once', async () => {
      await finishOrder(cloud.storage, ids[0], 'SUBTRACTED', cloud.clock.now());
      const res = await list();
      assert.equal(res.body.expiredAggregate._count, 1);
      assert.deepEqual(res.body.expiredAggregate._sum, {
        price: 0.2,
        deliveryPrice: 0.07,
        paidAmount: 0,
        notPaidAmount: 0.27,
        promoCodeAmount: 0,
      });
    });
  });
}
