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

export const DEFAULT_BUSY_RETRY: BusyRetry = { deadlineMs: 10_000, maxPauseMs: 50 };

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `attempt` until it is not refused as busy, pausing asynchronously between tries. */
export async function retryWhileBusy<T>(attempt: () => T | Promise<T>, retry: BusyRetry = DEFAULT_BUSY_RETRY): Promise<T> {
  const started = performance.now();
  for (let wait = 1; ; wait = Math.min(wait * 2, retry.maxPauseMs)) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err) || performance.now() - started >= retry.deadlineMs) throw err;
      await pause(wait);
    }
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

class BusyRetryingDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();

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
      const retry = this.retry;
      w = {
        executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => retryWhileBusy(() => connection.executeQuery<R>(query), retry),
        streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
      };
      this.wrapped.set(connection, w);
      this.unwrapped.set(w, connection);
    }
    return w;
  }

  private readonly unwrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) => this.inner.savepoint!(connection, name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) => this.inner.rollbackToSavepoint!(connection, name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) => this.inner.releaseSavepoint!(connection, name, compile);

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.unwrapped.get(connection) ?? connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
