import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { addToStats, moveInStats, readStats } from '../../cloud/storage/order-stats.ts';

const amounts = { price: 100, deliveryPrice: 10, paidAmount: 0, notPaidAmount: 110, promoCodeAmount: 0 };

for (const dialect of DIALECTS) {
  describe(`order counters: a status change moves one order between two statuses' counters (${dialect.name})`, () => {
    let storage: TestStorage;
    before(async () => {
      storage = await openTestStorage(dialect);
    });
    after(() => storage.destroy());

    const counters = async (companyId: string) =>
      Object.fromEntries(
        (
          await storage.db
            .selectFrom('order_stats')
            .select(['status', 'count', 'notPaidAmount'])
            .where('companyId', '=', companyId)
            .orderBy('status')
            .execute()
        ).map((r) => [r.status, [Number(r.count), Number(r.notPaidAmount)]]),
      );

    it('takes the count and amounts from one and adds them to the other, creating a missing row, in either status order', async () => {
      await addToStats(storage.db, 'c1', 'DELIVERED', 2, { ...amounts, notPaidAmount: 220 });
      await moveInStats(storage.db, 'c1', 'DELIVERED', 'COMPLETED', amounts);
      assert.deepEqual(await counters('c1'), { COMPLETED: [1, 110], DELIVERED: [1, 110] });
      // CREATED sorts before DELIVERED: the other row order of the one statement.
      await addToStats(storage.db, 'c1', 'CREATED', 1, amounts);
      await moveInStats(storage.db, 'c1', 'CREATED', 'DELIVERED', amounts);
      assert.deepEqual(await counters('c1'), { COMPLETED: [1, 110], CREATED: [0, 0], DELIVERED: [2, 220] });
      await moveInStats(storage.db, 'c1', 'DELIVERED', 'DELIVERED', amounts);
      assert.deepEqual((await counters('c1')).DELIVERED, [2, 220], 'no move within one status');
      const sums = await readStats(storage.db, 'c1');
      assert.ok(sums, 'the list reads the counters it wrote');
    });

    it('lets concurrent moves in opposite directions through (no deadlock on the two rows)', async () => {
      await addToStats(storage.db, 'c2', 'CREATED', 20, { ...amounts, notPaidAmount: 2200 });
      await addToStats(storage.db, 'c2', 'DELIVERED', 20, { ...amounts, notPaidAmount: 2200 });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          storage.db.transaction().execute(async (trx) => {
            if (i % 2) await moveInStats(trx, 'c2', 'CREATED', 'DELIVERED', amounts);
            else await moveInStats(trx, 'c2', 'DELIVERED', 'CREATED', amounts);
            // Held a moment with both rows locked, so that the transactions overlap.
            await new Promise((r) => setTimeout(r, 5));
          }),
        ),
      );
      assert.deepEqual(await counters('c2'), { CREATED: [20, 2200], DELIVERED: [20, 2200] });
    });
  });
}
