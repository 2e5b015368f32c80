/**
 * Marketplace Idempotency-Keys are kept for their hour (the spec: "a repeat with the same key
 * within one hour returns the stored first response") and pruned after it, through the real
 * HTTP API and the real pruner on one ManualClock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { RetentionPruner, retentionOptions } from '../../cloud/retention/pruner.ts';
import { loadRetentionConfig } from '../../cloud/config.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { marketClient, newKey, seedMarketWorld, type MarketWorld } from '../helpers/market-world.ts';
import { countingDb, deletesOn } from './statements.ts';

const MINUTE = 60_000;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] retention: marketplace Idempotency-Keys`, () => {
    let cloud: TestApp;
    let world: MarketWorld;
    let m: ReturnType<typeof marketClient>;
    const clock = new ManualClock('2026-04-01T08:00:00.000Z');
    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      world = await seedMarketWorld(cloud);
      m = marketClient(cloud, world);
    });
    after(() => cloud.stop());
    const db = () => cloud.storage.db;
    const keys = async () =>
      (await db().selectFrom('market_idempotency').select('key').orderBy('key').execute()).map((r) => r.key);
    const parcels = async () =>
      Number(
        (
          await db()
            .selectFrom('parcel')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('keys past their hour are pruned in batches; a fresh one still returns the stored first answer', async () => {
      const old = [newKey(), newKey(), newKey(), newKey(), newKey()];
      for (const key of old) assert.equal((await m.create(m.body(), { key })).status, 200);
      clock.advance(61 * MINUTE);
      const fresh = newKey();
      const first = await m.create(m.body(), { key: fresh });
      assert.equal(first.status, 200);
      clock.advance(30 * MINUTE);

      const counted = countingDb(db());
      const pruner = new RetentionPruner(
        { db: counted.db, clock, logger: silentLogger },
        { ...retentionOptions(loadRetentionConfig({})), batch: 2 },
      );
      const counts = await pruner.runOnce();
      assert.equal(counts.idempotencyKeys, 5);
      assert.deepEqual(
        deletesOn(counted.statements, 'market_idempotency').map((d) => d.rows),
        [2, 2, 1],
      );
      assert.deepEqual(await keys(), [fresh]);

      const count = await parcels();
      const again = await m.create(m.body(), { key: fresh });
      assert.deepEqual([again.status, again.body], [200, first.body]);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(await parcels(), count, 'nothing created by the repeat');

      // A pruned key is simply free again, as it was once its hour had passed.
      const reused = await m.create(m.body({ weight: 3 }), { key: old[0] });
      assert.deepEqual([reused.status, reused.body.weight], [200, 3]);
    });
  });
}
