/**
 * The migrated tables of both databases are the ones table-columns.ts names, column for column
 * (that file is what the type checker compares with the Kysely interfaces: table-columns.types.ts).
 * A migration that adds a column on one database only, or a stale table-columns.ts, fails here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tableColumns } from '../../scripts/table-columns.ts';
import { DIALECTS, openTestStorage } from '../helpers/storage.ts';
import { TABLE_COLUMNS } from './table-columns.ts';

describe('tables as migrated, and as the Kysely interfaces name them', () => {
  for (const dialect of DIALECTS) {
    it(`${dialect.name}: every table and column of table-columns.ts, and no other (else: npm run schema:columns)`, async () => {
      const storage = await openTestStorage(dialect);
      try {
        const migrated = await tableColumns(storage.db);
        const expected = Object.fromEntries(Object.entries(TABLE_COLUMNS).map(([t, cols]) => [t, [...cols]]));
        assert.ok(Object.keys(expected).length > 50, 'the generated file names the tables');
        assert.deepEqual(migrated, expected);
      } finally {
        await storage.destroy();
      }
    });
  }
});
