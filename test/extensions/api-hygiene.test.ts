/**
 * API hygiene (issue 22) through the real HTTP server: Idempotency-Key on the Locker API's POSTs
 * (same key and body: the same answer and nothing new, under concurrent retries too; another
 * body: 409; past 24 hours: a fresh start; no header: the spec's behaviour), and the RateLimit-*
 * headers on every answer of a rate-limited family.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { ManualClock } from '../../shared/clock.ts';

const BASE = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key on the Locker API (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(() => cloud.stop());

    const body = (customData: string) => ({
      toUserPhone: '+996555123456',
      postomatId: w.near.id,
      sendMessage: false,
      customData,
    });
    const create = (b: unknown, key?: string) =>
      cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyB.key,
        body: b,
        headers: key ? { 'Idempotency-Key': key } : {},
      });
    const ordersWith = async (customData: string) =>
      (
        await cloud.storage.db.selectFrom('locker_order').select('id').where('customData', '=', customData).execute()
      ).map((r) => r.id);

    it('the same key and body answer the same order, and create it once', async () => {
      const first = await create(body('idem-1'), 'key-1');
      assert.equal(first.status, 200, first.text);
      const again = await create(body('idem-1'), 'key-1');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(await ordersWith('idem-1'), [first.body.id]);
    });

    it('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED, and creates nothing', async () => {
      await create(body('idem-2'), 'key-2');
      const other = await create(body('idem-2-other'), 'key-2');
      assert.equal(other.status, 409);
      assert.equal(other.body.message, 'IDEMPOTENCY_KEY_REUSED');
      assert.deepEqual(await ordersWith('idem-2-other'), []);
    });

    it('concurrent retries with one key make one order, and all get it', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => create(body('idem-3'), 'key-3')));
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(6).fill(200),
      );
      assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
      assert.deepEqual(await ordersWith('idem-3'), [answers[0].body.id]);
    });

    it('keys are per company: another company with the same key gets its own order', async () => {
      const mine = await create(body('idem-4'), 'shared-key');
      const theirs = await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyA.key,
        body: body('idem-4'),
        headers: { 'Idempotency-Key': 'shared-key' },
      });
      assert.equal(theirs.status, 200, theirs.text);
      assert.notEqual(theirs.body.id, mine.body.id);
    });

    it('without the header, two identical requests make two orders (the spec)', async () => {
      await create(body('idem-5'));
      await create(body('idem-5'));
      assert.equal((await ordersWith('idem-5')).length, 2);
    });

    it('a failed request leaves no claim: its retry with the key runs again', async () => {
      const failed = await create({ ...body('idem-6'), postomatId: w.inactive.id }, 'key-6');
      assert.equal(failed.status, 500);
      const retried = await create(body('idem-6'), 'key-6');
      assert.equal(retried.status, 200, retried.text);
    });

    it('after 24 hours a key starts afresh', async () => {
      const first = await create(body('idem-7'), 'key-7');
      clock.advance(24 * 3_600_000);
      const later = await create(body('idem-7'), 'key-7');
      assert.equal(later.status, 200);
      assert.notEqual(later.body.id, first.body.id);
    });

    it('an over-long key is a validation error', async () => {
      const res = await create(body('idem-8'), 'k'.repeat(256));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'FST_ERR_VALIDATION');
    });

    it('extension POSTs honour the key too (cancel)', async () => {
      const order = (await create(body('idem-9'))).body;
      const cancel = () =>
        cloud.request('POST', `${BASE}/order/${order.id}/cancel`, {
          token: w.companyB.key,
          headers: { 'Idempotency-Key': 'cancel-9' },
        });
      const first = await cancel();
      assert.equal(first.status, 200, first.text);
      const again = await cancel();
      assert.deepEqual(again.body, first.body);
      const reused = await cloud.request('POST', `${BASE}/order/${order.id}/extend`, {
        token: w.companyB.key,
        body: { days: 1 },
        headers: { 'Idempotency-Key': 'cancel-9' },
      });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.message, 'IDEMPOTENCY_KEY_REUSED');
    });
  });
}

describe('RateLimit-* headers', () => {
  let cloud: TestApp;
  let w: LockerWorld;
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  before(async () => {
    cloud = await startTestApp(DIALECTS[0], { clock, env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' } });
    w = await seedLockerWorld(cloud.storage.db);
  });
  after(() => cloud.stop());

  it('every answer of a limited family carries limit, remaining and reset, the refusal too', async () => {
    const heads = [];
    for (let i = 0; i < 3; i++) {
      const res = await cloud.request('GET', `${BASE}/country`, { token: w.companyA.key });
      heads.push([
        res.status,
        res.headers.get('ratelimit-limit'),
        res.headers.get('ratelimit-remaining'),
        res.headers.get('ratelimit-reset'),
      ]);
      clock.advance(10_000);
    }
    assert.deepEqual(heads, [
      [200, '2', '1', '60'],
      [200, '2', '0', '50'],
      [429, '2', '0', '40'],
    ]);
    const pub = await cloud.request('GET', '/api/v1/public/postomat/ZETA01');
    assert.equal(pub.headers.get('ratelimit-limit'), '2');
  });
});
