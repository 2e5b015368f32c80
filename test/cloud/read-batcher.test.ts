import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EndOfTurnReads, InPlaceReads, scheduledRead } from '../../cloud/storage/read-batcher.ts';
import { DIALECTS, openTestStorage } from '../helpers/storage.ts';
import { prepared } from '../../cloud/storage/prepared.ts';
import type { Db } from '../../cloud/storage/database.ts';
import { createLockerCompany } from '../../cloud/services/admin/companies.ts';

describe('reads at the end of the turn', () => {
  const reads = new EndOfTurnReads();
  const atEndOfTurn = <T>(read: () => T) => scheduledRead(reads, read);

  it('runs the reads asked for in one turn after its synchronous work, back to back, before any answer', async () => {
    const log: string[] = [];
    const first = atEndOfTurn(() => (log.push('read 1'), 1)).then((v) => (log.push('answer 1'), v));
    const second = atEndOfTurn(() => (log.push('read 2'), 2)).then((v) => (log.push('answer 2'), v));
    log.push('rest of the turn');
    assert.deepEqual(await Promise.all([first, second]), [1, 2]);
    assert.deepEqual(log, ['rest of the turn', 'read 1', 'read 2', 'answer 1', 'answer 2']);
  });

  it('rejects only the read that failed', async () => {
    const failing = atEndOfTurn(() => {
      throw new Error('no such table');
    });
    const fine = atEndOfTurn(() => 'row');
    await assert.rejects(failing, /no such table/);
    assert.equal(await fine, 'row');
  });

  it('runs a read asked for by an answer in a later turn', async () => {
    const log: string[] = [];
    await atEndOfTurn(() => log.push('read 1')).then(() => {
      const next = atEndOfTurn(() => log.push('read 2'));
      log.push('answer 1');
      return next;
    });
    assert.deepEqual(log, ['read 1', 'answer 1', 'read 2']);
  });
});

describe('reads in place', () => {
  it('runs each read where it is asked for', async () => {
    const log: string[] = [];
    const read = scheduledRead(new InPlaceReads(), () => (log.push('read'), 1));
    log.push('rest of the turn');
    assert.equal(await read, 1);
    assert.deepEqual(log, ['read', 'rest of the turn']);
  });

  it('waits for a busy database without holding the loop, then reads', async () => {
    let tries = 0;
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const value = await scheduledRead(new InPlaceReads(), () => {
      if (++tries < 3) throw busy;
      return 'row';
    });
    assert.equal(value, 'row');
    assert.equal(tries, 3);
  });
});

const companyName = prepared<[id: string], { title: string }>(1, (db: Db, id) =>
  db.selectFrom('locker_company').select('title').where('id', '=', id),
);

for (const dialect of DIALECTS) {
  describe(`prepared reads (${dialect.name})`, () => {
    it('see what was committed before them, and inside a transaction its own writes', async () => {
      const storage = await openTestStorage(dialect);
      try {
        const { id } = await createLockerCompany(
          storage.db,
          { title: 'First', orderPrice: 0, deliveryPrice: 0, defaultDays: 3 },
          new Date(),
        );
        assert.deepEqual(await companyName(storage.db, id), [{ title: 'First' }]);
        await storage.db.transaction().execute(async (trx) => {
          await trx.updateTable('locker_company').set({ title: 'Renamed' }).where('id', '=', id).execute();
          assert.deepEqual(await companyName(trx, id), [{ title: 'Renamed' }]);
          assert.deepEqual(
            await companyName(storage.db, id),
            [{ title: 'First' }],
            'outside the transaction, the last committed state',
          );
        });
        assert.deepEqual(await companyName(storage.db, id), [{ title: 'Renamed' }]);
      } finally {
        await storage.destroy();
      }
    });

    if (dialect.name === 'sqlite')
      it('refuse a statement that writes (between transactions they run on the write connection)', async () => {
        const storage = await openTestStorage(dialect);
        try {
          const { id } = await createLockerCompany(
            storage.db,
            { title: 'Kept', orderPrice: 0, deliveryPrice: 0, defaultDays: 3 },
            new Date(),
          );
          const deleting = prepared<[id: string], { id: string }>(1, (db: Db, x) =>
            db.deleteFrom('locker_company').where('id', '=', x).returning('id'),
          );
          await assert.rejects(deleting(storage.db, id), /a direct read must not write/);
          assert.deepEqual(await companyName(storage.db, id), [{ title: 'Kept' }]);
        } finally {
          await storage.destroy();
        }
      });
  });
}
