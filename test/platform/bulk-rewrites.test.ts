/**
 * An operator change that rewrites many rows (a company renamed: its cargo's search text) does
 * it a batch per short transaction, and what a dead process left half-done is finished by the
 * cloud.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { createCargo } from '../../cloud/services/platform/cargo.ts';
import { updatePlatformCompany } from '../../cloud/services/platform/companies.ts';
import { runBulkJobs } from '../../cloud/services/platform/bulk-rewrites.ts';
import { startTestCloud } from '../helpers/cloud.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { until } from '../sync/harness.ts';

const CARGO = 7;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] bulk rewrites`, () => {
    let storage: TestStorage;
    let w: PlatformWorld;
    const clock = new ManualClock('2026-06-01T09:00:00.000Z');
    const texts = async () =>
      (
        await storage.db
          .selectFrom('cargo')
          .select('searchText')
          .where('companyId', '=', w.logist.id)
          .orderBy('id')
          .execute()
      ).map((r) => r.searchText);

    before(async () => {
      storage = await openTestStorage(dialect);
      w = await seedPlatformWorld(storage.db, clock.now());
      for (let i = 0; i < CARGO; i++) {
        await createCargo(
          storage.db,
          {
            companyId: w.logist.id,
            warehouseId: w.store.id,
            weight: 10 + i,
            currency: 'USD',
            clientId: w.aibek.id,
            cargoTypeId: w.cargoType.id,
          },
          clock.now(),
        );
      }
    });
    after(() => storage.destroy());

    it('a rename rewrites its cargo before the call returns, in batches of their own transactions', async () => {
      await updatePlatformCompany(storage.db, w.logist.id, { title: 'Tian Shan Cargo' }, clock.now());
      const now = await texts();
      assert.equal(now.length, CARGO);
      assert.ok(
        now.every((t) => t.includes('tian shan cargo') && t.includes('srl')),
        "the new title, and the client's code name kept",
      );
      assert.equal((await storage.db.selectFrom('bulk_job').select('id').execute()).length, 0, 'nothing left queued');
    });

    it('a rewrite cut short after one batch is finished by the cloud, row by row as if it had never stopped', async () => {
      // The change and its job commit; the process then dies after one batch of three.
      await storage.db
        .transaction()
        .execute((trx) => updatePlatformCompany(trx, w.logist.id, { title: 'Pamir Freight' }, clock.now()));
      assert.equal(await runBulkJobs(storage.db, { batch: 3, maxBatches: 1 }), 3);
      const half = await texts();
      assert.deepEqual(
        half.map((t) => t.includes('pamir freight')),
        [true, true, true, false, false, false, false],
      );
      const [job] = await storage.db.selectFrom('bulk_job').selectAll().execute();
      assert.equal(job.kind, 'CARGO_OF_COMPANY');

      const cloud = await startTestCloud(dialect, { reuse: storage, clock });
      try {
        await until('the cloud finished the rewrite', async () =>
          (await storage.db.selectFrom('bulk_job').select('id').execute()).length === 0 ? true : undefined,
        );
        assert.ok((await texts()).every((t) => t.includes('pamir freight') && !t.includes('tian shan')));
      } finally {
        await cloud.close();
      }
    });

    it('two runners on one job rewrite each row once and leave nothing queued', async () => {
      await storage.db
        .transaction()
        .execute((trx) => updatePlatformCompany(trx, w.logist.id, { title: 'Issyk Kul Lines' }, clock.now()));
      const [a, b] = await Promise.all([runBulkJobs(storage.db, { batch: 2 }), runBulkJobs(storage.db, { batch: 2 })]);
      assert.equal(a + b, CARGO, 'every row rewritten by exactly one of them');
      assert.ok((await texts()).every((t) => t.includes('issyk kul lines')));
      assert.equal((await storage.db.selectFrom('bulk_job').select('id').execute()).length, 0);
    });
  });
}
