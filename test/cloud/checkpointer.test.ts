/**
 * SQLite's checkpoints in a worker thread (cloud/storage/checkpointer.ts): the log's pages reach
 * the database file without the write connection checkpointing (its own automatic checkpoint is
 * a backstop, far above what these tests write), and nudges are coalesced.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStorage } from '../../cloud/storage/database.ts';
import { BACKSTOP_PAGES, Checkpointer } from '../../cloud/storage/checkpointer.ts';
import { eventually } from '../helpers/receiver.ts';

describe('checkpoints off the event loop', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-checkpoint-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("copies the log into the database file from the worker, the write connection's own checkpoint left as a backstop", async () => {
    const file = path.join(dir, 'cloud.db');
    const storage = await openStorage(file);
    try {
      const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(storage.db);
      assert.equal(auto.rows[0]!.wal_autocheckpoint, BACKSTOP_PAGES);
      await sql`create table probe (id integer primary key, v text not null)`.execute(storage.db);
      await eventually(() => storage.commitStats()!.checkpoints! >= 1);
      const sizeBefore = fs.statSync(file).size;
      // ~2 MB in 40 transactions: ~500 pages, far below the backstop's 10,000.
      for (let t = 0; t < 40; t++)
        await storage.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 50; i++) await sql`insert into probe (v) values (${'x'.repeat(1000)})`.execute(trx);
        });
      const checkpointsAfterWrites = storage.commitStats()!.checkpoints!;
      // Only a checkpoint writes the database file itself; only the worker checkpoints at this size.
      await eventually(() => fs.statSync(file).size >= sizeBefore + 1_500_000);
      assert.ok(storage.commitStats()!.checkpoints! >= checkpointsAfterWrites);
      const copy = new SQLite(file, { fileMustExist: true });
      try {
        assert.equal((copy.prepare('select count(*) as n from probe').get() as { n: number }).n, 2000);
      } finally {
        copy.close();
      }
    } finally {
      await storage.close();
    }
  });

  it('coalesces nudges: at most one checkpoint per interval, however many commits ask', async () => {
    const file = path.join(dir, 'nudged.db');
    const db = new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (v text)');
    const checkpointer = new Checkpointer(file, 100);
    try {
      const started = performance.now();
      const until = started + 350;
      while (performance.now() < until) {
        db.prepare('insert into t (v) values (?)').run('row');
        checkpointer.nudge();
        await new Promise((r) => setImmediate(r));
      }
      await eventually(() => checkpointer.stats.checkpoints >= 1);
      const elapsed = performance.now() - started;
      // One at once, then one per 100 ms at most (and one more the last nudge may have queued).
      assert.ok(
        checkpointer.stats.checkpoints <= Math.ceil(elapsed / 100) + 1,
        `${checkpointer.stats.checkpoints} checkpoints in ${Math.round(elapsed)} ms`,
      );
      assert.equal(checkpointer.stats.failures, 0);
    } finally {
      await checkpointer.close();
      db.close();
    }
    // Closed: a nudge does nothing (and does not throw).
    checkpointer.nudge();
  });
});
