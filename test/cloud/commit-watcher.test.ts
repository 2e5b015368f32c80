/**
 * The SQLite commit watcher (cloud/storage/notifications.ts) hears another process's commit
 * from the write-ahead log's change events, not from a timer: with its safety timer set to a
 * minute, a notice committed by another connection still arrives at once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { SqliteCommitWatcher } from '../../cloud/storage/notifications.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-watch-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function database(name: string, journal: 'wal' | 'delete') {
  const file = path.join(dir, name);
  const db = new SQLite(file);
  db.pragma(`journal_mode = ${journal}`);
  db.exec('create table change_notice (id integer primary key autoincrement, message text not null)');
  return { file, db };
}

/** Resolves with the messages heard, once `n` arrived; rejects after `ms`. */
function hear(watcher: SqliteCommitWatcher, n: number, ms: number): Promise<Array<string | undefined>> {
  return new Promise((resolve, reject) => {
    const heard: Array<string | undefined> = [];
    const timer = setTimeout(() => reject(new Error(`heard ${heard.length} of ${n} in ${ms} ms`)), ms);
    void watcher.listen((m) => {
      heard.push(m);
      if (heard.length === n) {
        clearTimeout(timer);
        resolve(heard);
      }
    }, reject);
  });
}

describe('SQLite commit watcher', () => {
  it("hears another connection's commits from the log's change events, with its timer at a minute", async () => {
    const { file, db } = database('wal.db', 'wal');
    const watcher = new SqliteCommitWatcher(db, 60_000);
    const other = new SQLite(file);
    try {
      const heard = hear(watcher, 2, 3_000);
      await new Promise((r) => setTimeout(r, 50));
      other.prepare('insert into change_notice (message) values (?)').run('first');
      await new Promise((r) => setTimeout(r, 50));
      other.prepare('insert into change_notice (message) values (?)').run('second');
      assert.deepEqual(await heard, ['first', 'second']);
    } finally {
      await watcher.close();
      other.close();
      db.close();
    }
  });

  it('without a write-ahead log, its timer alone still hears them', async () => {
    const { file, db } = database('rollback.db', 'delete');
    const watcher = new SqliteCommitWatcher(db, 50);
    const other = new SQLite(file);
    try {
      const heard = hear(watcher, 1, 3_000);
      other.prepare('insert into change_notice (message) values (?)').run('only');
      assert.deepEqual(await heard, ['only']);
    } finally {
      await watcher.close();
      other.close();
      db.close();
    }
  });

  it('its own commits on the same connection wake nobody', async () => {
    const { db } = database('own.db', 'wal');
    const watcher = new SqliteCommitWatcher(db, 20);
    const heard: Array<string | undefined> = [];
    try {
      await watcher.listen(
        (m) => heard.push(m),
        (err) => assert.fail(err),
      );
      db.prepare('insert into change_notice (message) values (?)').run('mine');
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(heard, []);
    } finally {
      await watcher.close();
      db.close();
    }
  });
});
