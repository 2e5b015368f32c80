import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';

const BASE = '/api/v1/logistic-company/webhook';
const DEFAULT = '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}}}';

for (const dialect of DIALECTS) {
  describe(`webhook management (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    let admin: string;
    let otherAdmin: string;
    before(async () => {
      cloud = await startTestApp(dialect);
      w = await seedPlatformWorld(cloud.storage.db);
      const token = async (email: string) =>
        (await cloud.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken;
      admin = await token('admin@silkroad.example');
      otherAdmin = await token('admin@osh.example');
    });
    after(() => cloud.stop());
    const create = (body: unknown, token = admin) => cloud.request('POST', `${BASE}/create`, { token, body });
    const patch = (id: number, body: unknown, token = admin) =>
      cloud.request('PATCH', `${BASE}/${id}`, { token, body });

    describe('POST /create', () => {
      let placed: any;
      let ad: any;
      it('creates a webhook with every field of the spec', async () => {
        const res = await create({
          type: 'PARCEL',
          subtype: 'DELIVERED_TO_POSTOMAT',
          url: 'https://hooks.example.com/placed',
          payloadTemplate: '{"id":"{{postomatOrderId}}","status":{{status}},"src":"lockers"}',
          apiKey: 'secret-1',
        });
        assert.equal(res.status, 200);
        placed = res.body;
        assert.deepEqual(Object.keys(placed).sort(), [
          'apiKey',
          'companyId',
          'createdAt',
          'id',
          'method',
          'payloadTemplate',
          'subtype',
          'type',
          'updatedAt',
          'url',
        ]);
        assert.deepEqual(
          [placed.type, placed.subtype, placed.method, placed.companyId, placed.apiKey],
          ['PARCEL', 'DELIVERED_TO_POSTOMAT', 'POST', w.logist.id, 'secret-1'],
        );
      });

      it('406 WEBHOOK_TYPE_EXIST for a second webhook of the same type + subtype', async () => {
        const res = await create({
          type: 'PARCEL',
          subtype: 'DELIVERED_TO_POSTOMAT',
          url: 'https://other.example.com/x',
        });
        assert.deepEqual(res.body, { statusCode: 406, error: 'Not Acceptable', message: 'WEBHOOK_TYPE_EXIST' });
        assert.equal(
          (
            await create(
              { type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT', url: 'https://other.example.com/x' },
              otherAdmin,
            )
          ).status,
          200,
          'another company may',
        );
      });

      it('the default template when none is given for the locker subtypes', async () => {
        const res = await create({
          type: 'PARCEL',
          subtype: 'TRANSFERRED_TO_CLIENT',
          url: 'https://hooks.example.com/taken',
        });
        assert.equal(res.body.payloadTemplate, DEFAULT);
        assert.equal(res.body.apiKey, null);
      });

      it('subtype is kept only for PARCEL, CARGO and NOTIFICATION', async () => {
        const cargo = await create({ type: 'CARGO', subtype: 'ITEM_CREATED', url: 'https://hooks.example.com/c' });
        assert.equal(cargo.body.subtype, 'ITEM_CREATED');
        const car = await create({ type: 'CAR', subtype: 'ITEM_CREATED', url: 'https://hooks.example.com/car' });
        assert.deepEqual([car.status, car.body.subtype], [200, null]);
        ad = (
          await create({ type: 'ADVERTISEMENT', subtype: 'ARRIVED_AT_DELIVERY', url: 'https://hooks.example.com/ad' })
        ).body;
        assert.equal(ad.subtype, null);
        // CAR with another subtype is still CAR + null: one per type + subtype.
        assert.equal(
          (await create({ type: 'CAR', subtype: 'ARRIVED_AT_DELIVERY', url: 'https://hooks.example.com/car2' })).body
            .message,
          'WEBHOOK_TYPE_EXIST',
        );
      });

      it('406 WEBHOOK_PAYLOAD_INVALID: other placeholders, or not JSON after substitution', async () => {
        for (const payloadTemplate of [
          '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}},"x":"{{phone}}"}',
          '{"postomatOrderId":{{postomatOrderId}},"status":{{status}}}',
          '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}}',
          'not json',
        ]) {
          const res = await create({
            type: 'NOTIFICATION',
            subtype: 'DELIVERED_TO_POSTOMAT',
            url: 'https://hooks.example.com/n',
            payloadTemplate,
          });
          assert.deepEqual(
            res.body,
            { statusCode: 406, error: 'Not Acceptable', message: 'WEBHOOK_PAYLOAD_INVALID' },
            payloadTemplate,
          );
        }
      });

      it('400 for a missing type or url, an unknown type or subtype, a URL that is not http(s)', async () => {
        for (const body of [
          { url: 'https://x.example.com' },
          { type: 'PARCEL' },
          { type: 'PACKAGE', url: 'https://x.example.com' },
          { type: 'PARCEL', subtype: 'SOMETHING', url: 'https://x.example.com' },
          { type: 'PARCEL', url: 'ftp://x.example.com' },
        ]) {
          const res = await create(body);
          assert.deepEqual([res.status, res.body.code], [400, 'FST_ERR_VALIDATION'], JSON.stringify(body));
        }
        const both = await create({});
        assert.equal(
          both.body.message,
          "body must have required property 'type', body must have required property 'url'",
        );
      });

      it('PATCH /{id} keeps omitted fields, re-checks the rules, and refuses another company', async () => {
        const res = await patch(placed.id, { url: 'https://hooks.example.com/placed-v2' });
        assert.equal(res.status, 200);
        assert.deepEqual(
          [res.body.url, res.body.type, res.body.subtype, res.body.payloadTemplate, res.body.apiKey],
          [
            'https://hooks.example.com/placed-v2',
            'PARCEL',
            'DELIVERED_TO_POSTOMAT',
            placed.payloadTemplate,
            'secret-1',
          ],
        );
        assert.equal((await patch(placed.id, { subtype: 'TRANSFERRED_TO_CLIENT' })).body.message, 'WEBHOOK_TYPE_EXIST');
        assert.equal(
          (await patch(placed.id, { payloadTemplate: '{"a":"{{orderId}}"}' })).body.message,
          'WEBHOOK_PAYLOAD_INVALID',
        );
        const cleared = await patch(placed.id, { apiKey: null });
        assert.deepEqual([cleared.body.apiKey, cleared.body.url], [null, 'https://hooks.example.com/placed-v2']);
        assert.equal(
          (await patch(placed.id, { type: 'ADVERTISEMENT' })).body.message,
          'WEBHOOK_TYPE_EXIST',
          'its subtype would be dropped: ADVERTISEMENT + none exists',
        );
        await cloud.request('DELETE', `${BASE}/${ad.id}`, { token: admin });
        const toAd = await patch(placed.id, { type: 'ADVERTISEMENT' });
        assert.deepEqual([toAd.body.type, toAd.body.subtype], ['ADVERTISEMENT', null]);
        assert.equal((await patch(placed.id, { type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT' })).status, 200);
        assert.deepEqual((await patch(placed.id, { url: 'https://evil.example.com' }, otherAdmin)).body, {
          statusCode: 406,
          error: 'Not Acceptable',
          message: 'NOT_ACCEPTABLE',
        });
        assert.deepEqual((await patch(999_999, { url: 'https://x.example.com' })).body, {
          statusCode: 404,
          error: 'Not Found',
          message: 'NOT_FOUND',
        });
        assert.deepEqual([(await patch(placed.id, { url: 'nope' })).status, (await patch(0, {})).status], [400, 400]);
      });

      it("GET /list pages of one by default, only the company's own", async () => {
        const one = await cloud.request('GET', `${BASE}/list`, { token: admin });
        assert.equal(one.body.data.length, 1);
        const all = await cloud.request('GET', `${BASE}/list?pageSize=100`, { token: admin });
        assert.equal(all.body.total, one.body.total);
        assert.equal(all.body.total, all.body.data.length);
        assert.ok(all.body.data.every((h: any) => h.companyId === w.logist.id));
        const theirs = await cloud.request('GET', `${BASE}/list?pageSize=100`, { token: otherAdmin });
        assert.equal(theirs.body.total, 1);
      });

      it("DELETE /{id}: the spec's message, 406 for another company, 404 when gone", async () => {
        assert.equal(
          (await cloud.request('DELETE', `${BASE}/${placed.id}`, { token: otherAdmin })).body.message,
          'NOT_ACCEPTABLE',
        );
        const res = await cloud.request('DELETE', `${BASE}/${placed.id}`, { token: admin });
        assert.deepEqual([res.status, res.body], [200, { message: 'api key deleted' }]);
        assert.equal(
          (await cloud.request('DELETE', `${BASE}/${placed.id}`, { token: admin })).body.message,
          'NOT_FOUND',
        );
        assert.equal(
          (await create({ type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT', url: 'https://hooks.example.com/again' }))
            .status,
          200,
          'the kind is free again',
        );
      });
    });
  });
}
