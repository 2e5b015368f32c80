/**
 * Opens the one storage layer on either database. `DATABASE_URL` decides:
 * `postgres://…` (or `postgresql://…`) for PostgreSQL, anything else is a SQLite
 * file path or `file:` URL (default ./data/cloud.db), `:memory:` included.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresAdapter, PostgresDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrations/index.ts';
import { nameRepeatedStatements } from './pg-named-statements.ts';
import { notifyAtCommit } from './pg-notify-at-commit.ts';
import { redactUrl } from '../../shared/urls.ts';
import { readScheduler, scheduledRead, type ReadsKind } from './read-batcher.ts';
import { PostgresNotifications, SqliteCommitWatcher } from './notifications.ts';
import { ChangeFeed } from './change-feed.ts';
import { BusyRetryingSqliteDialect, type BusyRetry } from './sqlite-busy.ts';
import { groupCommitting, type CommitStats } from './group-commit.ts';
import { DurableFlush, type Sync } from './durable-flush.ts';
import { BACKSTOP_PAGES, Checkpointer } from './checkpointer.ts';
import { prepareSqliteFile, restrictSqliteCompanions } from '../../shared/private-files.ts';

import type { Db, DialectName } from './db-types.ts';
export type { Db, DialectName };

/** The dialect behind a Kysely instance, for the few fragments that differ (a JSON function's name). */
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export interface Storage {
  db: Db;
  dialect: DialectName;
  /** a short, password-free description for logs */
  describe: string;
  /**
   * Wake-ups after commits: this storage's users in this process, and every other process on
   * the database (change-feed.ts). One per storage, so that an operator command run in the
   * cloud's own process wakes that cloud too.
   */
  changes: ChangeFeed;
  /** statements run so far by this storage (operators' metrics; tests count the work of a request) */
  statements(): number;
  /** SQLite: the COMMITs run and the transactions they carried (group-commit.ts); undefined on PostgreSQL */
  commitStats(): CommitStats | undefined;
  /** calls `listener` with each statement's duration in milliseconds (metrics); one listener, the latest */
  onStatement(listener: ((ms: number) => void) | undefined): void;
  /** PostgreSQL's connection pool now; undefined on SQLite (one connection) */
  pool(): { total: number; idle: number; waiting: number } | undefined;
  close(): Promise<void>;
}

/** Counts (and times, for metrics) statements as Kysely runs them; prepared reads on SQLite's direct reader count themselves. */
class StatementCounter {
  n = 0;
  listener: ((ms: number) => void) | undefined;
  readonly log = (event: { queryDurationMillis: number }) => this.record(event.queryDurationMillis);
  record(ms: number): void {
    this.n++;
    this.listener?.(ms);
  }
}

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate themselves this way); created when missing */
  schema?: string;
  poolSize?: number;
  migrate?: boolean;
  /** SQLite: how long a statement waits (asynchronously) for another connection's lock (sqlite-busy.ts) */
  busyRetry?: BusyRetry;
  /** SQLite: when prepared reads run (read-batcher.ts); at the end of the event-loop turn by default */
  reads?: ReadsKind;
  /** SQLite: how the write-ahead log is brought to the disk (durable-flush.ts); fdatasync by default (tests hold it) */
  sync?: Sync;
  /** PostgreSQL: name each connection's repeated statements (pg-named-statements.ts); on by default */
  namedStatements?: boolean;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function sqlitePathFromUrl(url: string): string {
  if (url.startsWith('file:')) return url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
  return url;
}

export async function openStorage(url: string, options: OpenOptions = {}): Promise<Storage> {
  const storage = isPostgresUrl(url) ? await openPostgres(url, options) : openSqlite(url, options);
  if (options.migrate !== false) {
    try {
      await migrateToLatest(storage.db, storage.dialect);
    } catch (err) {
      await storage.close();
      throw err;
    }
  }
  return storage;
}

function openSqlite(url: string, options: OpenOptions): Storage {
  const file = sqlitePathFromUrl(url);
  // The file holds API keys and order codes: a new one is created owner-only (private-files.ts).
  const created = prepareSqliteFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  if (created) restrictSqliteCompanions(file);
  // Never wait for a lock synchronously: sqlite-busy.ts waits asynchronously instead.
  sqlite.pragma('busy_timeout = 0');
  sqlite.pragma('foreign_keys = ON');
  // WAL + NORMAL: a COMMIT does not wait for the disk (checkpoints still sync); every write is
  // answered only after durable-flush.ts has synced the log off the event loop, so an answered
  // write survives a power cut as with FULL.
  sqlite.pragma('synchronous = NORMAL');
  tuneReads(sqlite);
  const counter = new StatementCounter();
  const onDisk = file !== ':memory:';
  const flusher = new DurableFlush(onDisk ? `${file}-wal` : undefined, options.sync);
  // Checkpoints in a worker thread (checkpointer.ts); the connection's own only as a backstop.
  const checkpoints = onDisk ? new Checkpointer(file) : undefined;
  if (checkpoints) sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const writes = groupCommitting(
    new BusyRetryingSqliteDialect({ database: withStatementCache(sqlite) }, options.busyRetry),
    async () => {
      await flusher.flush();
      checkpoints?.nudge();
    },
  );
  const db = new Kysely<Database>({ dialect: writes.dialect, log: counter.log });
  // A second, read-only connection serves prepared reads (prepared.ts) synchronously, outside
  // Kysely's one-connection queue: WAL lets it read the last committed state while the main
  // connection is inside another request's transaction. An in-memory database has no second
  // connection to share, so it has no direct reader.
  let reader: SQLite.Database | undefined;
  if (file !== ':memory:') {
    reader = new SQLite(file, { readonly: true, timeout: 0 });
    // A busy read waits asynchronously instead (read-batcher.ts).
    reader.pragma('busy_timeout = 0');
    tuneReads(reader);
    // A read runs on the write connection whenever that connection is between transactions
    // (it then sees exactly the last commit, as the reader would): SQLite empties a
    // connection's page cache whenever another connection has committed since its last read,
    // so on the reader every read after a commit began from a cold cache (~35 µs more a
    // lookup in isolation, 100-150 µs under bench:peak, where commits come every few ms). The
    // reader serves the reads asked for while a transaction is open on the write connection.
    const onReader = rowReader(reader, counter);
    const onWriter = rowReader(sqlite, counter);
    const read = (text: string, parameters: readonly unknown[]) =>
      sqlite.inTransaction ? onReader(text, parameters) : onWriter(text, parameters);
    const scheduler = readScheduler(options.reads ?? 'end-of-turn');
    directReaders.set(db, (text, parameters) => scheduledRead(scheduler, () => read(text, parameters)));
  }
  const changes = new ChangeFeed(new SqliteCommitWatcher(sqlite));
  return {
    db,
    dialect: 'sqlite',
    describe: `sqlite:${file}`,
    changes,
    statements: () => counter.n,
    commitStats: () => ({
      ...writes.stats,
      flushes: flusher.stats.flushes,
      checkpoints: checkpoints?.stats.checkpoints,
    }),
    onStatement: (listener) => void (counter.listener = listener),
    pool: () => undefined,
    close: async () => {
      await changes.close();
      reader?.close();
      await checkpoints?.close();
      await db.destroy();
      await flusher.close();
    },
  };
}

/**
 * Reads at a million orders touch pages all over the file: SQLite's default 2 MB page cache
 * turned each lookup into several pread calls. Memory-mapped reads and a larger cache keep hot
 * pages in the process (both are upper bounds: a small database uses what it needs).
 */
function tuneReads(sqlite: SQLite.Database): void {
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 1073741824');
}

/**
 * Prepared reads on the read-only connection. Rows come back as arrays and become objects
 * through a function compiled once per statement: better-sqlite3 builds each row object
 * property by property in C++, which cost a third of a single-order lookup; an object literal
 * of fixed shape is one allocation with a known layout. Column names are quoted with
 * JSON.stringify, so no name can change the generated code.
 */
function rowReader(
  sqlite: SQLite.Database,
  counter: StatementCounter,
): (sql: string, parameters: readonly unknown[]) => unknown[] {
  const entryOf = boundedCache(1000, (text: string) => {
    const statement = sqlite.prepare(text).raw(true);
    // The write connection serves these reads too: nothing that writes may come this way.
    if (!statement.readonly) throw new Error(`a direct read must not write: ${text.slice(0, 80)}`);
    const names = statement.columns().map((c) => c.name);
    const row = new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as (
      values: unknown[],
    ) => unknown;
    return { statement, row };
  });
  return (text, parameters) => {
    const { statement, row } = entryOf(text);
    if (!counter.listener) {
      counter.n++;
      return (statement.all(...parameters) as unknown[][]).map(row);
    }
    const started = performance.now();
    const rows = (statement.all(...parameters) as unknown[][]).map(row);
    counter.record(performance.now() - started);
    return rows;
  };
}

/** Runs a read-only statement on its own connection, when its scheduler says (SQLite file databases). */
export type DirectReader = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;
const directReaders = new WeakMap<Kysely<any>, DirectReader>();

export function directReaderOf(db: Kysely<any>): DirectReader | undefined {
  return directReaders.get(db);
}

/**
 * Kysely's SQLite driver prepares every statement anew; preparing was the largest single cost
 * of a simple read. Kysely needs only `prepare` and `close` of the database (its
 * SqliteDatabase interface), so we hand it this wrapper that reuses prepared statements.
 * Safe because Kysely runs one query at a time on its single SQLite connection.
 */
export function withStatementCache(sqlite: SQLite.Database, max = 1000): SqliteDatabase {
  const statementOf = boundedCache(max, (sql: string) => sqlite.prepare(sql));
  return {
    close: () => sqlite.close(),
    prepare: (sql: string) => statementOf(sql) as unknown as SqliteStatement,
  };
}

/**
 * What `make` built for each SQL text, kept for the next call. Queries with IN-lists of varying
 * length make new texts: past `max` entries the oldest goes.
 */
function boundedCache<T>(max: number, make: (sql: string) => T): (sql: string) => T {
  // Least recently used goes first: under a stream of one-off statements (a list with a varying
  // number of ids) the hot statements stay prepared.
  const cache = new Map<string, T>();
  return (sql) => {
    let value = cache.get(sql);
    if (value === undefined) {
      value = make(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    } else cache.delete(sql);
    cache.set(sql, value);
    return value;
  };
}

async function openPostgres(url: string, options: OpenOptions): Promise<Storage> {
  // int8 (counts, sums, bigint money) and numeric come back as strings by default: we keep money
  // in integer minor units well inside 2^53, so numbers are exact.
  const types = {
    getTypeParser(oid: number, format?: any) {
      if (oid === 20 || oid === 1700) return (v: string) => Number(v);
      return pg.types.getTypeParser(oid, format);
    },
  };
  const schema = options.schema;
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    types: types as any,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  if (options.namedStatements !== false) nameRepeatedStatements(pool);
  // After the naming: it must see the plain calls, and it sends its combined text unnamed.
  notifyAtCommit(pool);
  // Fail at start-up with a clear error rather than at the first request.
  const client = await pool.connect().catch(async (err) => {
    await pool.end().catch(() => {});
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${err.message}`);
  });
  // Notifications are per schema (however it was chosen: option, URL or PGOPTIONS), so that
  // deployments and test schemas sharing one database do not wake each other.
  const current = await client
    .query<{ schema: string | null }>('select current_schema() as schema')
    .finally(() => client.release());
  const channel = `parcel_locker_${current.rows[0]?.schema ?? 'public'}`.slice(0, 63);
  const counter = new StatementCounter();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: counter.log });
  const changes = new ChangeFeed(new PostgresNotifications(url, channel, schema));
  return {
    db,
    dialect: 'postgres',
    describe: redactUrl(url) + (schema ? ` (schema ${schema})` : ''),
    changes,
    statements: () => counter.n,
    commitStats: () => undefined,
    onStatement: (listener) => void (counter.listener = listener),
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await changes.close();
      await db.destroy();
    },
  };
}

export { redactUrl };
