import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { raw } from './types.ts';

const SEARCHED = ['parcel', 'cargo'] as const;

/**
 * Trigram indexes over the `searchText` of parcels and cargo, so a substring search over a
 * million items reads an index instead of every row (storage/shipment-search.ts uses them).
 *
 * - SQLite: an external-content FTS5 table with the trigram tokenizer per item table, holding
 *   only the index (the text stays in the item row). `detail=none` keeps just which rows hold
 *   each trigram, no positions: the search asks for single trigrams and checks the text itself
 *   (storage/shipment-search.ts), so positions would only make the index 2.5 times larger and
 *   its lookups slower. Triggers keep it in step with every insert, delete and change of
 *   `searchText`, inside the writing transaction.
 * - PostgreSQL: pg_trgm and a GIN trigram index on `searchText`, which serves `like '%…%'`.
 *   The extension is database-wide: it goes to `public` (where a test schema dropped with
 *   cascade cannot take it along), and the index names its operator class in whatever schema
 *   the extension actually lives in.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    for (const t of SEARCHED) {
      const fts = `${t}_search`;
      await raw(db, `create virtual table ${fts} using fts5("searchText", content='${t}', content_rowid='id', tokenize='trigram', detail='none')`);
      await raw(db, `create trigger ${fts}_insert after insert on ${t} begin
        insert into ${fts}(rowid, "searchText") values (new.id, new."searchText"); end`);
      await raw(db, `create trigger ${fts}_delete after delete on ${t} begin
        insert into ${fts}(${fts}, rowid, "searchText") values ('delete', old.id, old."searchText"); end`);
      await raw(db, `create trigger ${fts}_update after update of "searchText" on ${t} begin
        insert into ${fts}(${fts}, rowid, "searchText") values ('delete', old.id, old."searchText");
        insert into ${fts}(rowid, "searchText") values (new.id, new."searchText"); end`);
      await raw(db, `insert into ${fts}(${fts}) values ('rebuild')`);
    }
    return;
  }
  await raw(db, 'create extension if not exists pg_trgm with schema public');
  const { rows } = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const opclass = `"${rows[0].schema.replaceAll('"', '""')}".gin_trgm_ops`;
  for (const t of SEARCHED) await raw(db, `create index ${t}_search_trgm on ${t} using gin ("searchText" ${opclass})`);
}
