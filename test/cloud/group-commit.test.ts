/**
 * SQLite's group commit (cloud/storage/group-commit.ts): transactions that meet on the write
 * connection share one COMMIT; each caller hears of success only once that COMMIT is durable
 * (another connection sees its rows); a failing transaction leaves the others' work alone and
 * never keeps the write lock.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../../cloud/storage/database.ts';

describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let storage: Storage;
  /** another process's view of the file: it sees committed rows only */
  let other: SQLite.Database;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-group-'));
    file = path.join(dir, 'cloud.db');
    storage = await openStorage(file);
    await sql`create table probe (id integer primary key, v text not null unique)`.execute(storage.db);
    other = new SQLite(file);
    other.pragma('busy_timeout = 0');
  });
  after(async () => {
    other.close();
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committed = (v: string) => other.prepare('select count(*) as n from probe where v = ?').get(v) as { n: number };
  const insert = (v: string) =>
    storage.db.transaction().execute((trx) => sql`insert into probe (v) values (${v})`.execute(trx));

  it('commits transactions that wait for the connection together, each caller told only once its rows are durable', async () => {
    const before = storage.commitStats()!;
    const seenAtResolution: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        storage.db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into probe (v) values (${`a${i}`})`.execute(trx);
            await sql`insert into probe (v) values (${`b${i}`})`.execute(trx);
          })
          // What another connection sees the moment this caller hears "done".
          .then(() => seenAtResolution.push(committed(`a${i}`).n + committed(`b${i}`).n)),
      ),
    );
    assert.deepEqual(seenAtResolution, Array(20).fill(2), 'every caller resolved after its rows were committed');
    const after = storage.commitStats()!;
    assert.equal(after.transactions - before.transactions, 20);
    assert.ok(after.commits - before.commits < 20, `20 transactions in ${after.commits - before.commits} commits`);
  });

  it('rolls back a failing transaction alone: its caller gets its error, the others in its group commit', async () => {
    await insert('taken');
    const results = await Promise.allSettled([
      insert('c1'),
      storage.db.transaction().execute(async (trx) => {
        await sql`insert into probe (v) values (${'c-half'})`.execute(trx);
        await sql`insert into probe (v) values (${'taken'})`.execute(trx); // unique: fails
      }),
      insert('c2'),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
    assert.equal(committed('c1').n, 1);
    assert.equal(committed('c2').n, 1);
    assert.equal(committed('c-half').n, 0, "the failed transaction's first insert is rolled back");
  });

  it('answers a write made outside a transaction while a group is open only after the COMMIT', async () => {
    let seen = -1;
    await Promise.all([
      insert('d1'),
      sql`insert into probe (v) values (${'d-plain'})`.execute(storage.db).then(() => (seen = committed('d-plain').n)),
      insert('d2'),
    ]);
    assert.equal(seen, 1);
  });

  it("joins the group a lent connection began while waiting for another process's lock", async () => {
    // Another process holds the write lock: every BEGIN waits, lending the connection meanwhile.
    other.exec('begin immediate');
    const pending = Array.from({ length: 5 }, (_, i) => insert(`f${i}`));
    await new Promise((r) => setTimeout(r, 50));
    other.exec('commit');
    const results = await Promise.allSettled(pending);
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status)),
      Array(5).fill('fulfilled'),
    );
    for (let i = 0; i < 5; i++) assert.equal(committed(`f${i}`).n, 1);
  });

  it('gives the write lock back after a lone failing transaction', async () => {
    await assert.rejects(
      storage.db.transaction().execute(async (trx) => {
        await sql`insert into probe (v) values (${'e-half'})`.execute(trx);
        throw new Error('the caller gives up');
      }),
      /the caller gives up/,
    );
    // Another process can take the write lock at once: the group was ended, not left open.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    other.exec('begin immediate');
    other.exec('rollback');
    assert.equal(committed('e-half').n, 0);
  });
});
