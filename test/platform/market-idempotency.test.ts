import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { marketClient, newKey, seedMarketWorld, type MarketWorld } from '../helpers/market-world.ts';
import { ManualClock } from '../../shared/clock.ts';
import { changeParcelStatus } from '../../cloud/services/platform/parcels.ts';

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`marketplace Idempotency-Key (${dialect.name})`, () => {
    let cloud: TestCloud;
    let world: MarketWorld;
    let m: ReturnType<typeof marketClient>;
    const clock = new ManualClock('2026-04-01T08:00:00.000Z');
    before(async () => {
      cloud = await startTestCloud(dialect, { clock });
      world = await seedMarketWorld(cloud);
      m = marketClient(cloud, world);
    });
    after(() => cloud.stop());
    const db = () => cloud.storage.db;
    const parcelsOf = async (companyId: number) =>
      Number(
        (
          await db()
            .selectFrom('parcel')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('partnerCompanyId', '=', companyId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const orders = async () =>
      Number(
        (
          await db()
            .selectFrom('locker_order')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('a repeat within the hour gets the stored first answer and creates nothing, even after the parcel changed', async () => {
      const key = newKey();
      const first = await m.create(m.body(), { key });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const count = await parcelsOf(world.w.market.id);
      await changeParcelStatus(
        db(),
        { parcelId: first.body.id, to: 'RECEIVED', warehouseId: world.w.store.id },
        clock.now(),
      );
      clock.advance(HOUR - 1);
      const again = await m.create(m.body(), { key });
      assert.deepEqual(
        [again.status, again.body],
        [200, first.body],
        'the stored answer (status AWAITING), not a fresh read',
      );
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(await parcelsOf(world.w.market.id), count);
    });

    it('the same request with its fields in another order is the same request', async () => {
      const key = newKey();
      const body = m.body();
      const first = await m.create(body, { key });
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      assert.deepEqual((await m.create(reordered, { key })).body, first.body);
    });

    it('the same key with another request: 422 IDEMPOTENCY_KEY_REUSED, nothing created', async () => {
      const key = newKey();
      await m.create(m.body(), { key });
      const count = await parcelsOf(world.w.market.id);
      const res = await m.create(m.body({ weight: 9 }), { key });
      assert.deepEqual(res.body, { statusCode: 422, error: 'Unprocessable Entity', message: 'IDEMPOTENCY_KEY_REUSED' });
      assert.equal(await parcelsOf(world.w.market.id), count);
    });

    it("keys are per marketplace: another marketplace's key of the same name is its own", async () => {
      const key = newKey();
      const body = m.lockerBody(world.lw.near.id, { createPostomatOrder: false });
      const a = await m.create(body, { key });
      const b = await m.create(body, { key, apiKey: world.keys.quick });
      assert.equal(b.status, 200);
      assert.notEqual(a.body.id, b.body.id);
      assert.equal(b.body.partnerCompanyId, world.quick.id);
    });

    it('concurrent duplicates: exactly one parcel and one locker order, every caller gets the same body', async () => {
      const key = newKey();
      const body = m.lockerBody(world.lw.near.id);
      const [parcels, lockerOrders] = [await parcelsOf(world.w.market.id), await orders()];
      const answers = await Promise.all(Array.from({ length: 6 }, () => m.create(body, { key })));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 200, 200],
      );
      for (const a of answers) assert.deepEqual(a.body, answers[0].body);
      assert.equal(
        answers.filter((a) => a.headers.get('idempotent-replayed') === null).length,
        1,
        'one creator, five replays',
      );
      assert.equal(await parcelsOf(world.w.market.id), parcels + 1);
      assert.equal(await orders(), lockerOrders + 1);
      assert.equal(answers[0].body.parcel.postomatOrderId, answers[0].body.postomatOrder.id);
    });

    it('concurrent duplicates of a request that fails: each gets the failure, nothing is stored, a corrected retry creates', async () => {
      const key = newKey();
      const bad = m.body({ warehouseId: 9999 });
      const answers = await Promise.all(Array.from({ length: 3 }, () => m.create(bad, { key })));
      assert.deepEqual(
        answers.map((a) => [a.status, a.body.message]),
        Array(3).fill([404, 'WAREHOUSE_NOT_FOUND']),
      );
      const stored = await db().selectFrom('market_idempotency').select('key').where('key', '=', key).execute();
      assert.equal(stored.length, 0);
      const fixed = await m.create(m.body(), { key });
      assert.equal(fixed.status, 200);
      assert.deepEqual((await m.create(m.body(), { key })).body, fixed.body);
    });

    it('past the hour the key starts afresh: a new parcel, and a new request may use it', async () => {
      const key = newKey();
      const first = await m.create(m.body(), { key });
      clock.advance(HOUR);
      const second = await m.create(m.body(), { key });
      assert.equal(second.status, 200);
      assert.notEqual(second.body.id, first.body.id);
      assert.equal(second.headers.get('idempotent-replayed'), null);
      assert.deepEqual(
        (await m.create(m.body(), { key })).body,
        second.body,
        'and the new answer is the one repeated now',
      );
      clock.advance(HOUR + 1);
      const other = await m.create(m.body({ weight: 7 }), { key });
      assert.deepEqual([other.status, other.body.weight], [200, 7]);
    });

    it('concurrent repeats past the hour: one new parcel between them', async () => {
      const key = newKey();
      await m.create(m.body(), { key });
      clock.advance(2 * HOUR);
      const count = await parcelsOf(world.w.market.id);
      const answers = await Promise.all(Array.from({ length: 4 }, () => m.create(m.body(), { key })));
      for (const a of answers) assert.deepEqual([a.status, a.body], [200, answers[0].body]);
      assert.equal(await parcelsOf(world.w.market.id), count + 1);
    });
  });
}
