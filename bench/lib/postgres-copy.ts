/**
 * The same data on PostgreSQL (BENCH_DATABASE_URL): a benchmark seeds its SQLite file as before
 * (straight through better-sqlite3, minutes instead of hours through the API), then this copies
 * every table into a schema of its own on PostgreSQL, made by the cloud's own migrations. So
 * both databases are measured on identical rows in the same run.
 *
 * Rows go in multi-row INSERTs with foreign-key triggers off for the session
 * (session_replication_role = replica: the rows are consistent already, and the copy needs no
 * table order); serial sequences are moved past the copied ids; ANALYZE last.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { openStorage } from '../../cloud/storage/database.ts';
import { optimizeSearchIndexes } from '../../cloud/storage/search-maintenance.ts';

/** PostgreSQL's limit is 65,535 parameters per statement. */
const MAX_PARAMETERS = 60_000;

export interface PostgresCopy {
  /** DATABASE_URL for the cloud processes (the schema in `options`) */
  databaseUrl: string;
  /** environment for them (PGOPTIONS names the schema too) */
  env: Record<string, string>;
  schema: string;
  drop(): Promise<void>;
}

export const benchDatabaseUrl = (): string | undefined => process.env.BENCH_DATABASE_URL || undefined;

export async function copyToPostgres(
  sqliteFile: string,
  baseUrl: string,
  schema: string,
  log: (line: string) => void,
): Promise<PostgresCopy> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await admin.end();
  }
  // The cloud's migrations make the schema, exactly as a cloud starting on it would.
  const storage = await openStorage(baseUrl, { schema });
  await storage.close();

  const t0 = Date.now();
  const source = new SQLite(sqliteFile, { readonly: true });
  const client = new pg.Client({ connectionString: baseUrl, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query('set session_replication_role = replica');
    const tables = (
      await client.query<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' and table_name <> 'schema_migration'`,
        [schema],
      )
    ).rows.map((r) => r.table_name);
    const inSqlite = new Set(
      (source.prepare(`select name from sqlite_master where type = 'table'`).all() as Array<{ name: string }>).map(
        (r) => r.name,
      ),
    );
    const copied = tables.filter((t) => inSqlite.has(t));
    if (copied.length) await client.query(`truncate ${copied.map((t) => `"${t}"`).join(', ')} cascade`);
    for (const table of copied) {
      const pgColumns = (
        await client.query<{
          column_name: string;
          data_type: string;
          is_generated: string;
          column_default: string | null;
        }>(
          'select column_name, data_type, is_generated, column_default from information_schema.columns where table_schema = $1 and table_name = $2',
          [schema, table],
        )
      ).rows.filter((c) => c.is_generated !== 'ALWAYS');
      const sqliteColumns = new Set(
        (source.prepare(`select name from pragma_table_info(?)`).all(table) as Array<{ name: string }>).map(
          (c) => c.name,
        ),
      );
      const columns = pgColumns.filter((c) => sqliteColumns.has(c.column_name));
      if (!columns.length) continue;
      const convert = columns.map((c) =>
        c.data_type === 'boolean' ? (v: unknown) => (v === null ? null : Boolean(v)) : (v: unknown) => v,
      );
      const perBatch = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
      const names = columns.map((c) => `"${c.column_name}"`).join(', ');
      let batch: unknown[][] = [];
      let rows = 0;
      const flush = async () => {
        if (!batch.length) return;
        const values: unknown[] = [];
        const tuples = batch.map(
          (row) => `(${row.map((v, i) => (values.push(convert[i]!(v)), `$${values.length}`)).join(', ')})`,
        );
        await client.query(`insert into "${table}" (${names}) values ${tuples.join(', ')}`, values);
        rows += batch.length;
        batch = [];
      };
      for (const row of source.prepare(`select ${names} from "${table}"`).raw(true).iterate() as Iterable<unknown[]>) {
        batch.push(row);
        if (batch.length >= perBatch) await flush();
      }
      await flush();
      for (const c of columns.filter((x) => x.column_default?.startsWith('nextval('))) {
        await client.query(
          `select setval(pg_get_serial_sequence('"${table}"', '${c.column_name}'), coalesce((select max("${c.column_name}") from "${table}"), 0) + 1, false)`,
        );
      }
      if (rows >= 10_000) log(`copied ${rows.toLocaleString('en')} rows of ${table} to PostgreSQL`);
    }
    await client.query('set session_replication_role = origin');
    await client.query('analyze');
  } finally {
    await client.end();
    source.close();
  }
  // As an operator does after a bulk import (search optimize): the search indexes in one piece.
  const after = await openStorage(baseUrl, { schema, migrate: false });
  try {
    await optimizeSearchIndexes(after.db, 'postgres');
  } finally {
    await after.close();
  }
  log(`copied the database to PostgreSQL schema ${schema} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    env: { PGOPTIONS: `-c search_path=${schema}` },
    schema,
    async drop() {
      if (process.env.BENCH_KEEP) return;
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
