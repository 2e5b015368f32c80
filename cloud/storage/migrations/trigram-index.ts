import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/** The tables whose `searchText` has a trigram index: the items (009) and the clients (010). */
export type TrigramTable = 'parcel' | 'cargo' | 'platform_client';

/** The index's name: the FTS5 table on SQLite, the GIN index on PostgreSQL. */
export const trigramIndexName = (dialect: DialectName, table: TrigramTable) =>
  dialect === 'sqlite' ? `${table}_search` : `${table}_search_trgm`;

/**
 * A trigram index over `table."searchText"`, filled from the rows already there.
 *
 * - SQLite: an external-content FTS5 table with the trigram tokenizer, holding only the index
 *   (the text stays in the row). `detail=none` keeps just which rows hold each trigram, no
 *   positions: the search asks for single trigrams and checks the text itself
 *   (storage/shipment-search.ts), so positions would only make the index 2.5 times larger and
 *   its lookups slower. Triggers keep it in step with every insert, delete and change of
 *   `searchText`, inside the writing transaction.
 * - PostgreSQL: a GIN trigram index, which serves `like '%…%'`. pg_trgm is database-wide: it
 *   goes to `public` (where a test schema dropped with cascade cannot take it along), and the
 *   index names its operator class in whatever schema the extension actually lives in.
 */
export async function createTrigramIndex(db: Kysely<any>, dialect: DialectName, table: TrigramTable): Promise<void> {
  const index = trigramIndexName(dialect, table);
  if (dialect === 'sqlite') {
    await raw(
      db,
      `create virtual table ${index} using fts5("searchText", content='${table}', content_rowid='id', tokenize='trigram', detail='none')`,
    );
    await raw(
      db,
      `create trigger ${index}_insert after insert on ${table} begin
      insert into ${index}(rowid, "searchText") values (new.id, new."searchText"); end`,
    );
    await raw(
      db,
      `create trigger ${index}_delete after delete on ${table} begin
      insert into ${index}(${index}, rowid, "searchText") values ('delete', old.id, old."searchText"); end`,
    );
    await raw(
      db,
      `create trigger ${index}_update after update of "searchText" on ${table} begin
      insert into ${index}(${index}, rowid, "searchText") values ('delete', old.id, old."searchText");
      insert into ${index}(rowid, "searchText") values (new.id, new."searchText"); end`,
    );
    await raw(db, `insert into ${index}(${index}) values ('rebuild')`);
    return;
  }
  await raw(db, 'create extension if not exists pg_trgm with schema public');
  const { rows } = await sql<{
    schema: string;
  }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(
    db,
  );
  const opclass = `"${rows[0].schema.replaceAll('"', '""')}".gin_trgm_ops`;
  await raw(db, `create index ${index} on ${table} using gin ("searchText" ${opclass})`);
}

/** Drops what createTrigramIndex made, so a rewrite of every text can build the index once afterwards. */
export async function dropTrigramIndex(db: Kysely<any>, dialect: DialectName, table: TrigramTable): Promise<void> {
  const index = trigramIndexName(dialect, table);
  if (dialect === 'sqlite') {
    for (const t of ['insert', 'delete', 'update']) await raw(db, `drop trigger ${index}_${t}`);
    await raw(db, `drop table ${index}`);
    return;
  }
  await raw(db, `drop index ${index}`);
}
