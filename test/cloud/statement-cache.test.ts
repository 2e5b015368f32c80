/**
 * The write connection's prepared statements (cloud/storage/database.ts withStatementCache):
 * bounded, and least recently used first, so that a stream of one-off statements never makes
 * the hot ones be prepared again; and the group commit's savepoints add no statement per
 * transaction (a name that changed with each one evicted every hot statement under load).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStorage, withStatementCache } from '../../cloud/storage/database.ts';

describe('the statement cache of the write connection', () => {
  it('keeps the statements in use prepared while one-off statements pass through a full cache', () => {
    const sqlite = new SQLite(':memory:');
    const prepared: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((text: string) => {
      prepared.push(text);
      return prepare(text);
    }) as typeof sqlite.prepare;
    const cache = withStatementCache(sqlite, 3);
    for (let i = 0; i < 20; i++) {
      cache.prepare('select 1');
      cache.prepare(`select ${i + 2}`);
    }
    assert.equal(prepared.filter((t) => t === 'select 1').length, 1, 'the hot statement was prepared once');
    assert.equal(prepared.length, 21);
    sqlite.close();
  });

  it('prepares no statement for the savepoints of each new grouped transaction', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-savepoints-'));
    const storage = await openStorage(path.join(dir, 'cloud.db'));
    const texts = new Set<string>();
    try {
      await sql`create table probe (v integer)`.execute(storage.db);
      const original = SQLite.prototype.prepare;
      SQLite.prototype.prepare = function (this: SQLite.Database, text: string) {
        texts.add(text);
        return original.call(this, text);
      } as typeof original;
      try {
        for (let round = 0; round < 3; round++)
          await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              storage.db.transaction().execute((trx) => sql`insert into probe (v) values (${i})`.execute(trx)),
            ),
          );
      } finally {
        SQLite.prototype.prepare = original;
      }
      // The migrations' transactions prepared the savepoint statements already: 30 more transactions prepare none.
      const savepoints = [...texts].filter((t) => /savepoint/i.test(t));
      assert.deepEqual(savepoints, []);
      assert.ok(texts.has('insert into probe (v) values (?)'), 'the spy saw the statements prepared meanwhile');
    } finally {
      await storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
