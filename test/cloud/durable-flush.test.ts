/**
 * The log's flush to the disk (cloud/storage/durable-flush.ts): a request is answered only by a
 * flush that began after it, requests made during one flush share the next, a failed flush fails
 * only its own round; and in the storage, a write is answered only once flushed, off the event
 * loop, while a read is not held.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { DurableFlush } from '../../cloud/storage/durable-flush.ts';
import { openStorage, type Storage } from '../../cloud/storage/database.ts';

/** A sync that waits to be let through, one call at a time, recording the calls. */
function gatedSync() {
  const calls: Array<{ fd: number; release: (err?: Error) => void }> = [];
  let open = false;
  const waiting: Array<() => void> = [];
  return {
    calls,
    sync: (fd: number) =>
      new Promise<void>((resolve, reject) => {
        if (open) return resolve();
        calls.push({ fd, release: (err) => (err ? reject(err) : resolve()) });
        waiting.splice(0).forEach((w) => w());
      }),
    /** resolves once `n` syncs have been asked for */
    asked: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (calls.length >= n ? resolve() : waiting.push(check));
        check();
      }),
    openGate() {
      open = true;
    },
  };
}

const settled = async (p: Promise<unknown>) => {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  await new Promise((r) => setImmediate(r));
  return state;
};

describe('DurableFlush', () => {
  let dir: string;
  let log: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-flush-'));
    log = path.join(dir, 'cloud.db-wal');
    fs.writeFileSync(log, 'frames');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers a request only with a flush begun after it; the requests made during a flush share the next', async () => {
    const gate = gatedSync();
    const flush = new DurableFlush(log, gate.sync);
    const first = flush.flush();
    await gate.asked(1);
    const second = flush.flush();
    const third = flush.flush();
    assert.equal(await settled(first), 'pending');
    gate.calls[0]!.release();
    assert.equal(await settled(first), 'resolved');
    // The flush that answered `first` began before these two were asked: they wait for another.
    assert.equal(await settled(second), 'pending');
    assert.equal(await settled(third), 'pending');
    await gate.asked(2);
    gate.calls[1]!.release();
    assert.equal(await settled(second), 'resolved');
    assert.equal(await settled(third), 'resolved');
    assert.equal(gate.calls.length, 2, 'three requests, two flushes');
    assert.deepEqual(flush.stats, { flushes: 2, requests: 3 });
    assert.equal(typeof gate.calls[0]!.fd, 'number');
    await flush.close();
  });

  it('fails only the round whose flush failed; the next round flushes afresh', async () => {
    const gate = gatedSync();
    const flush = new DurableFlush(log, gate.sync);
    const failing = flush.flush();
    await gate.asked(1);
    const later = flush.flush();
    gate.calls[0]!.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await assert.rejects(failing, /EIO/);
    await gate.asked(2);
    gate.calls[1]!.release();
    await later;
    await flush.close();
    await assert.rejects(flush.flush(), /closed/);
  });

  it('needs no flush before the log exists, nor for a database without one', async () => {
    const gate = gatedSync();
    await new DurableFlush(path.join(dir, 'never-written.db-wal'), gate.sync).flush();
    await new DurableFlush(undefined, gate.sync).flush();
    assert.equal(gate.calls.length, 0);
  });
});

describe('SQLite writes answered after the flush', () => {
  let dir: string;
  let file: string;
  let storage: Storage;
  let other: SQLite.Database;
  const gate = gatedSync();
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-flush-db-'));
    file = path.join(dir, 'cloud.db');
    // Migrations and the table are flushed at once; each test holds the flushes of a storage of its own.
    gate.openGate();
    storage = await openStorage(file, { sync: gate.sync });
    await sql`create table probe (id integer primary key, v text not null unique)`.execute(storage.db);
    // Another process's view of the file: it sees committed rows only.
    other = new SQLite(file);
    other.pragma('busy_timeout = 0');
  });
  after(async () => {
    other.close();
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committed = (v: string) =>
    (other.prepare('select count(*) as n from probe where v = ?').get(v) as { n: number }).n;

  it('commits without waiting for the disk, and answers the transaction once the log is flushed', async () => {
    const held = gatedSync();
    const flushing = await openStorage(file, { sync: held.sync, migrate: false });
    try {
      const write = flushing.db.transaction().execute((trx) => sql`insert into probe (v) values ('t1')`.execute(trx));
      await held.asked(1);
      assert.equal(committed('t1'), 1, 'committed while the flush is under way');
      assert.equal(await settled(write), 'pending', 'not answered before the disk has it');
      // The event loop is free meanwhile: a read on the same storage is answered.
      const read = await sql<{ n: number }>`select count(*) as n from probe`.execute(flushing.db);
      assert.ok(read.rows[0]!.n >= 1);
      held.calls[0]!.release();
      await write;

      const alone = sql`insert into probe (v) values ('a1')`.execute(flushing.db);
      await held.asked(2);
      assert.equal(await settled(alone), 'pending', 'a write outside a transaction waits for the flush too');
      held.calls[1]!.release();
      await alone;
      assert.equal(committed('a1'), 1);
    } finally {
      held.openGate();
      held.calls.forEach((c) => c.release());
      await flushing.close();
    }
  });

  it("tells the transaction's caller when the flush fails (its rows committed, their durability unknown)", async () => {
    const held = gatedSync();
    const flushing = await openStorage(file, { sync: held.sync, migrate: false });
    try {
      const write = flushing.db.transaction().execute((trx) => sql`insert into probe (v) values ('f1')`.execute(trx));
      await held.asked(1);
      held.calls[0]!.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      await assert.rejects(write, /EIO/);
      assert.equal(committed('f1'), 1);
    } finally {
      held.openGate();
      await flushing.close();
    }
  });

  it('runs the write connection with synchronous = NORMAL: the flush, not the COMMIT, waits for the disk', async () => {
    const row = await sql<{ synchronous: number }>`pragma synchronous`.execute(storage.db);
    assert.equal(row.rows[0]!.synchronous, 1);
  });
});
