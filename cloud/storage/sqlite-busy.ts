/**
 * SQLite waits for a lock held by another connection (another process: the operator CLI, a
 * second cloud) without holding the event loop. better-sqlite3 is synchronous: with a busy
 * timeout of 5 s, one statement meeting a held write lock froze every request of the process
 * for up to 5 s. Here the connection's busy timeout is zero, and a statement refused with
 * SQLITE_BUSY is tried again after an asynchronous pause, up to a deadline; meanwhile the
 * event loop serves whatever does not need the write connection (health, prepared reads on the
 * read-only connection, the broker).
 *
 * Write transactions begin IMMEDIATE: the write lock is taken (and waited for) by BEGIN, before
 * anything is read, so a statement inside the transaction never meets SQLITE_BUSY_SNAPSHOT,
 * which no retry of that statement could cure.
 */
import {
  CompiledQuery,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';

export interface BusyRetry {
  /** give up (SQLITE_BUSY reaches the caller) after waiting this long in all */
  deadlineMs: number;
  /** the longest single pause between tries */
  maxPauseMs: number;
}

export const DEFAULT_BUSY_RETRY: BusyRetry = { deadlineMs: 10_000, maxPauseMs: 10 };

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BEGIN = 'begin immediate';

/**
 * A BEGIN that waited for another process's lock, with the connection lent meanwhile, found that
 * a transaction lent it had begun one: the caller joins that transaction (group-commit.ts).
 */
export class TransactionAlreadyOpen extends Error {
  constructor() {
    super('a transaction began on the connection while this BEGIN waited for the lock');
  }
}

export class BusyRetryingSqliteDialect extends SqliteDialect {
  constructor(
    config: SqliteDialectConfig,
    private readonly retry: BusyRetry = DEFAULT_BUSY_RETRY,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new BusyRetryingDriver(super.createDriver(), this.retry);
  }
}

/**
 * While a statement waits for another process's lock, this process's own connection is lent
 * to the statements queued behind it (reads above all, which WAL never makes wait): the wait
 * happens with the connection released, outside a transaction. Inside one (after BEGIN
 * IMMEDIATE) the connection is kept, and a statement there does not meet a busy lock.
 */
class BusyRetryingDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  private readonly unwrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  private readonly inTransaction = new WeakSet<DatabaseConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly retry: BusyRetry,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let w = this.wrapped.get(connection);
    if (!w) {
      w = {
        executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => this.execute<R>(connection, query),
        streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
      };
      this.wrapped.set(connection, w);
      this.unwrapped.set(w, connection);
    }
    return w;
  }

  /** Runs a statement, waiting out SQLITE_BUSY; outside a transaction the connection is released meanwhile. */
  private async execute<R>(connection: DatabaseConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    const started = performance.now();
    for (let wait = 1; ; wait = Math.min(wait * 2, this.retry.maxPauseMs)) {
      try {
        return await connection.executeQuery<R>(query);
      } catch (err) {
        if (!isBusy(err) || performance.now() - started >= this.retry.deadlineMs) throw err;
      }
      if (this.inTransaction.has(connection)) {
        await pause(wait);
      } else {
        await this.inner.releaseConnection(connection);
        await pause(wait);
        await this.inner.acquireConnection();
        if (query.sql === BEGIN && this.inTransaction.has(connection)) throw new TransactionAlreadyOpen();
      }
    }
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const inner = this.unwrapped.get(connection) ?? connection;
    await this.execute(inner, CompiledQuery.raw(BEGIN));
    this.inTransaction.add(inner);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.commitTransaction(connection);
    this.inTransaction.delete(this.unwrapped.get(connection) ?? connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } finally {
      this.inTransaction.delete(this.unwrapped.get(connection) ?? connection);
    }
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) => this.inner.savepoint!(connection, name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) =>
    this.inner.rollbackToSavepoint!(connection, name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) =>
    this.inner.releaseSavepoint!(connection, name, compile);

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.unwrapped.get(connection) ?? connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
