import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';

const BASE = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`POST /order/create (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    before(async () => {
      cloud = await startTestApp(dialect);
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(() => cloud.stop());

    const create = (body: unknown, token = w.companyB.key) =>
      cloud.request('POST', `${BASE}/order/create`, { body, token });
    const count = async (table: 'locker_order' | 'order_code' | 'recipient' | 'order_status') =>
      Number(
        (
          await cloud.storage.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('creates an order with the company defaults and answers the order object', async () => {
      const res = await create({
        toUserPhone: '  +996555123456 ',
        postomatId: w.near.id,
        sendMessage: true,
        customData: 'ref-1',
      });
      assert.equal(res.status, 200);
      const o = res.body;
      assert.match(o.id, /^[a-z][0-9a-z]{23}$/);
      assert.equal(o.postomatId, w.near.id);
      assert.equal(o.companyId, w.companyB.id);
      assert.equal(o.days, 5, 'days default to the company setting');
      assert.equal(o.weight, 0);
      assert.equal(o.customData, 'ref-1');
      assert.equal(o.sendMessage, true);
      assert.equal(o.isActive, true);
      assert.equal(o.cellId, null);
      assert.equal(o.startDateTime, null);
      assert.equal(o.endDateTime, null);
      assert.equal(typeof o.currentStatusId, 'string');
      assert.equal(o.passwords, undefined, 'the create answer carries no codes');
      const read = await cloud.request('GET', `${BASE}/order/${o.id}?withToUser=true&withCurrentStatus=true`, {
        token: w.companyB.key,
      });
      assert.equal(read.body.toUser.phone, '+996555123456', 'the phone is stored trimmed');
      assert.equal(read.body.currentStatus.type, 'CREATED');
    });

    it('creates three distinct four-digit codes with the order', async () => {
      const { body: o } = await create({
        toUserPhone: '+996700000001',
        postomatId: w.near.id,
        sendMessage: false,
        days: 2,
        weight: 1.5,
      });
      assert.equal(o.days, 2);
      assert.equal(o.weight, 1.5);
      const codes = await Promise.all(
        ['down-code', 'up-code', 'subtract-code'].map((p) =>
          cloud.request('GET', `${BASE}/order/${o.id}/${p}`, { token: w.companyB.key }),
        ),
      );
      assert.deepEqual(
        codes.map((c) => c.body.type),
        ['DOWN', 'UP', 'SUBTRACT'],
      );
      for (const c of codes) assert.match(c.body.password, /^\d{4}$/);
      assert.equal(new Set(codes.map((c) => c.body.password)).size, 3);
    });

    it('reuses the recipient of a known phone number', async () => {
      const a = await create({ toUserPhone: '+996700000777', postomatId: w.near.id, sendMessage: false });
      const b = await create({ toUserPhone: '+996700000777', postomatId: w.mid.id, sendMessage: false });
      assert.equal(a.body.toUserId, b.body.toUserId);
    });

    it('gives concurrent creations for a new phone number one recipient', async () => {
      const phone = '+996700000778';
      const answers = await Promise.all(
        [w.near.id, w.mid.id, w.near.id, w.mid.id].map((postomatId) =>
          create({ toUserPhone: phone, postomatId, sendMessage: false }),
        ),
      );
      for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(new Set(answers.map((a) => a.body.toUserId)).size, 1);
      const rows = await cloud.storage.db.selectFrom('recipient').select('id').where('phone', '=', phone).execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        [answers[0]!.body.toUserId],
      );
    });

    it('prices the order from the company tariff and leaves it unpaid without pay', async () => {
      const res = await create(
        { toUserPhone: '+996700000002', postomatId: w.near.id, sendMessage: false },
        w.companyA.key,
      );
      assert.equal(res.body.price, 150);
      assert.equal(res.body.deliveryPrice, 0.1);
      assert.equal(res.body.paidAmount, 0);
      assert.equal(res.body.notPaidAmount, 150.1);
    });

    it('pays from the company balance with pay: true', async () => {
      const before = await cloud.storage.db
        .selectFrom('locker_company')
        .select('balance')
        .where('id', '=', w.companyA.id)
        .executeTakeFirstOrThrow();
      const res = await create(
        { toUserPhone: '+996700000003', postomatId: w.near.id, sendMessage: false, pay: true },
        w.companyA.key,
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.paidAmount, 150.1);
      assert.equal(res.body.notPaidAmount, 0);
      const afterRow = await cloud.storage.db
        .selectFrom('locker_company')
        .select('balance')
        .where('id', '=', w.companyA.id)
        .executeTakeFirstOrThrow();
      assert.equal(before.balance - afterRow.balance, 15_010);
    });

    it('refuses pay: true beyond the balance with 403 INSUFFICIENT_FUNDS and writes nothing', async () => {
      await cloud.storage.db
        .updateTable('locker_company')
        .set({ balance: 100 })
        .where('id', '=', w.companyA.id)
        .execute();
      const orders = await count('locker_order');
      const codes = await count('order_code');
      const res = await create(
        { toUserPhone: '+996700000004', postomatId: w.near.id, sendMessage: false, pay: true },
        w.companyA.key,
      );
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { statusCode: 403, error: 'Forbidden', message: 'INSUFFICIENT_FUNDS' });
      assert.equal(await count('locker_order'), orders);
      assert.equal(await count('order_code'), codes);
      const row = await cloud.storage.db
        .selectFrom('locker_company')
        .select('balance')
        .where('id', '=', w.companyA.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.balance, 100);
    });

    it('answers a server error POSTOMAT_NOT_FOUND for a nonexistent or inactive locker and writes nothing', async () => {
      const orders = await count('locker_order');
      const recipients = await count('recipient');
      for (const postomatId of ['zzzzzzzzzzzzzzzzzzzzzzzz', w.inactive.id]) {
        const res = await create({ toUserPhone: '+996700009999', postomatId, sendMessage: false });
        assert.equal(res.status, 500);
        assert.deepEqual(res.body, { statusCode: 500, error: 'Internal Server Error', message: 'POSTOMAT_NOT_FOUND' });
      }
      assert.equal(await count('locker_order'), orders);
      assert.equal(await count('recipient'), recipients);
    });

    describe('validation', () => {
      const valid = () => ({ toUserPhone: '+996700000005', postomatId: w.near.id, sendMessage: true });
      const cases: Array<[string, (b: any) => unknown, string]> = [
        [
          'missing sendMessage',
          (b) => ({ ...b, sendMessage: undefined }),
          "body must have required property 'sendMessage'",
        ],
        [
          'missing toUserPhone',
          (b) => ({ ...b, toUserPhone: undefined }),
          "body must have required property 'toUserPhone'",
        ],
        [
          'missing postomatId',
          (b) => ({ ...b, postomatId: undefined }),
          "body must have required property 'postomatId'",
        ],
        [
          'phone without +',
          (b) => ({ ...b, toUserPhone: '996700000005' }),
          'body/toUserPhone must match pattern "^\\+\\d+$"',
        ],
        [
          'phone with letters',
          (b) => ({ ...b, toUserPhone: '+99670abc' }),
          'body/toUserPhone must match pattern "^\\+\\d+$"',
        ],
        [
          'phone over 20 characters',
          (b) => ({ ...b, toUserPhone: `+${'1'.repeat(20)}` }),
          'body/toUserPhone must NOT have more than 20 characters',
        ],
        [
          'malformed postomatId',
          (b) => ({ ...b, postomatId: 'NOT-A-CUID' }),
          'body/postomatId must match format "cuid2"',
        ],
        ['days below 1', (b) => ({ ...b, days: 0 }), 'body/days must be >= 1'],
        ['fractional days', (b) => ({ ...b, days: 1.5 }), 'body/days must be integer'],
        ['negative weight', (b) => ({ ...b, weight: -1 }), 'body/weight must be >= 0'],
        ['sendMessage as text', (b) => ({ ...b, sendMessage: 'yes' }), 'body/sendMessage must be boolean'],
        ['customData as number', (b) => ({ ...b, customData: 5 }), 'body/customData must be string'],
      ];
      for (const [name, mutate, message] of cases) {
        it(`400 FST_ERR_VALIDATION: ${name}`, async () => {
          const res = await create(mutate(valid()));
          assert.equal(res.status, 400);
          assert.deepEqual(res.body, { statusCode: 400, error: 'Bad Request', message, code: 'FST_ERR_VALIDATION' });
        });
      }
      it('400 for a body that is not JSON', async () => {
        const res = await cloud.request('POST', `${BASE}/order/create`, {
          rawBody: '{"toUserPhone":',
          token: w.companyB.key,
        });
        assert.equal(res.status, 400);
        assert.equal(res.body.statusCode, 400);
      });
      it('415 naming the type for a body that is not sent as JSON (curl -d without a Content-Type), and writes nothing', async () => {
        const before = await count('locker_order');
        const form = await cloud.request('POST', `${BASE}/order/create`, {
          rawBody: JSON.stringify(valid()),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          token: w.companyB.key,
        });
        assert.deepEqual(form.body, {
          statusCode: 415,
          error: 'Unsupported Media Type',
          message: 'Unsupported Media Type: application/x-www-form-urlencoded',
          code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
        });
        assert.equal((await create(valid())).status, 200, 'application/json is accepted');
        const jsonWithCharset = await cloud.request('POST', `${BASE}/order/create`, {
          rawBody: JSON.stringify(valid()),
          headers: { 'content-type': 'application/json; charset=utf-8' },
          token: w.companyB.key,
        });
        assert.equal(jsonWithCharset.status, 200, 'with a charset too');
        assert.equal(await count('locker_order'), before + 2);
      });
      it('400 "body must be object" without a body', async () => {
        const res = await cloud.request('POST', `${BASE}/order/create`, { token: w.companyB.key });
        assert.equal(res.status, 400);
        assert.equal(res.body.message, 'body must be object');
      });
      it('ignores unknown fields', async () => {
        const res = await create({ ...valid(), colour: 'blue' });
        assert.equal(res.status, 200);
        assert.equal(res.body.colour, undefined);
      });
    });

    describe('authentication', () => {
      for (const [name, headers] of [
        ['no header', {}],
        ['wrong key', { authorization: 'Bearer plk_wrong' }],
        ['empty bearer', { authorization: 'Bearer ' }],
        ['other scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ] as const) {
        it(`401 Unauthorized with ${name}`, async () => {
          const res = await cloud.request('POST', `${BASE}/order/create`, { body: {}, headers: { ...headers } });
          assert.equal(res.status, 401);
          assert.deepEqual(res.body, { statusCode: 401, error: 'Unauthorized', message: 'Unauthorized' });
        });
      }
      it('authenticates before it reads the body: a body that is not JSON is 401 without a key', async () => {
        const res = await cloud.request('POST', `${BASE}/order/create`, { rawBody: '{"toUserPhone":' });
        assert.equal(res.status, 401);
      });
      it('a path under the base that no route serves is 401 without a key and 404 with one', async () => {
        const anonymous = await cloud.request('GET', `${BASE}/no-such-endpoint`);
        assert.equal(anonymous.status, 401);
        const known = await cloud.request('GET', `${BASE}/no-such-endpoint`, { token: w.companyB.key });
        assert.equal(known.status, 404);
        const wrongMethod = await cloud.request('POST', `${BASE}/order/list`, { body: {} });
        assert.equal(wrongMethod.status, 401);
      });
    });
  });
}
