/**
 * Notifications between processes that share one database, so that a change committed by one
 * process (another cloud instance, the operator CLI) wakes the others at once instead of at
 * their next safety-net poll.
 *
 * - PostgreSQL: NOTIFY inside the writing transaction (delivered only if it commits, and only
 *   after it commits) and LISTEN on a connection of its own.
 * - SQLite: a notice row written in the transaction (table change_notice), read by the other
 *   processes when the write-ahead log changed and `PRAGMA data_version` on their write
 *   connection says another connection committed (reading it costs no I/O).
 */
import fs from 'node:fs';
import pg from 'pg';
import { CompiledQuery, sql } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Db } from './db-types.ts';

export interface NotificationTransport {
  /** Queues `message` inside the transaction `tx`; other processes receive it after the commit. */
  send(tx: Db, message: string): Promise<void>;
  /**
   * Starts receiving. `undefined` means "something changed, details unknown" (a commit seen on
   * SQLite, or a reconnection after which messages may have been missed).
   */
  listen(onMessage: (message: string | undefined) => void, onError: (err: Error) => void): Promise<void>;
  close(): Promise<void>;
}

/** NOTIFY's payload must stay under 8000 bytes. */
export const MAX_NOTIFICATION_BYTES = 7_900;

export class PostgresNotifications implements NotificationTransport {
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    /** one channel per schema: deployments (and test schemas) sharing a database do not wake each other */
    readonly channel: string,
    private readonly searchPath?: string,
  ) {}

  async send(tx: Db, message: string): Promise<void> {
    await sql`select pg_notify(${this.channel}, ${message})`.execute(tx);
  }

  async listen(onMessage: (message: string | undefined) => void, onError: (err: Error) => void): Promise<void> {
    await this.connect(onMessage, onError, false);
  }

  private async connect(
    onMessage: (message: string | undefined) => void,
    onError: (err: Error) => void,
    reconnecting: boolean,
  ): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      ...(this.searchPath ? { options: `-c search_path=${this.searchPath}` } : {}),
    });
    const again = (err: Error) => {
      if (this.closed || this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners();
      void client.end().catch(() => {});
      onError(err);
      this.retry = setTimeout(() => void this.connect(onMessage, onError, true).catch(() => {}), 1_000);
      this.retry.unref();
    };
    this.client = client;
    client.on('notification', (n) => {
      if (n.channel === this.channel) onMessage(n.payload);
    });
    client.on('error', again);
    client.on('end', () => again(new Error('notification connection ended')));
    try {
      await client.connect();
      await client.query(`listen "${this.channel}"`);
    } catch (err) {
      if (!reconnecting) {
        this.client = undefined;
        client.removeAllListeners();
        await client.end().catch(() => {});
        throw err;
      }
      again(err as Error);
      return;
    }
    // Whatever was sent while we were not listening is unknown: say so.
    if (reconnecting) onMessage(undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    if (c) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
    }
  }
}

const NOTICE_INSERT = 'insert into "change_notice" ("message") values (?) returning "id"';

/** Notices kept for slow readers; older ones are deleted as new ones are written. */
const KEPT_NOTICES = 1_000;

/**
 * How long a commit by another process may go unseen when the file system gives no change
 * events (a network file system): the watcher then checks on this timer alone.
 */
export const SQLITE_SAFETY_CHECK_MS = 2_000;

export class SqliteCommitWatcher implements NotificationTransport {
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private pending = false;
  private closed = false;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly safetyCheckMs = SQLITE_SAFETY_CHECK_MS,
  ) {}

  /**
   * A notice row in the committing transaction: readers see it once the transaction commits.
   * Every transaction with a consequence writes one, so its SQL is written once, not built.
   */
  async send(tx: Db, message: string): Promise<void> {
    const [row] = (await tx.executeQuery<{ id: number }>(CompiledQuery.raw(NOTICE_INSERT, [message]))).rows;
    if (!row) throw new Error('change notice: no id returned');
    const { id } = row;
    if (id % 100 === 0)
      await tx
        .deleteFrom('change_notice')
        .where('id', '<=', id - KEPT_NOTICES)
        .execute();
  }

  /**
   * A commit by any connection appends to the write-ahead log, so the kernel's change events
   * on the `-wal` file (inotify) say when to look, and an idle cloud wakes for nothing: a
   * timer that checked every 200 ms cost an idle process more than all its other work. On an
   * event, `PRAGMA data_version` (no I/O) tells whether another connection committed; only then
   * are the notices after the last one seen read. Events are coalesced to one check per turn of
   * the event loop. The slow timer covers file systems without change events. Commits that left
   * no notice (a bulk rewrite's batches, the pruner) wake nobody.
   */
  async listen(onMessage: (message: string | undefined) => void, onError: (err: Error) => void): Promise<void> {
    const after = this.sqlite.prepare('select id, message from change_notice where id > ? order by id limit 500');
    const dataVersion = this.sqlite.prepare('pragma data_version').pluck();
    let last = (this.sqlite.prepare('select coalesce(max(id), 0) as id from change_notice').get() as { id: number }).id;
    let seen = dataVersion.get() as number;
    const check = () => {
      this.pending = false;
      if (this.closed) return;
      try {
        const now = dataVersion.get() as number;
        if (now === seen) return;
        seen = now;
        const rows = after.all(last) as Array<{ id: number; message: string }>;
        for (const r of rows) onMessage(r.message);
        if (rows.length) last = rows[rows.length - 1].id;
        // More than a read's worth at once: whatever they said, treat it as "anything changed".
        if (rows.length === 500) onMessage(undefined);
      } catch (err) {
        onError(err as Error);
      }
    };
    const soon = () => {
      if (this.pending || this.closed) return;
      this.pending = true;
      setImmediate(check);
    };
    this.watchLog(soon);
    this.timer = setInterval(soon, this.safetyCheckMs);
    this.timer.unref();
  }

  /** Watches the write-ahead log, again after SQLite replaced it; without it, the timer alone. */
  private watchLog(onChange: () => void): void {
    const log = this.sqlite.memory ? undefined : `${this.sqlite.name}-wal`;
    if (!log || this.closed) return;
    try {
      this.watcher = fs.watch(log, { persistent: false }, (kind) => {
        onChange();
        if (kind === 'rename') {
          this.watcher?.close();
          this.watcher = undefined;
          setTimeout(() => this.watchLog(onChange), 100).unref();
        }
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // No log file (not in WAL mode) or no change events here: the timer alone.
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.close();
  }
}
