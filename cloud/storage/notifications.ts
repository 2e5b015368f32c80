/**
 * Notifications between processes that share one database, so that a change committed by one
 * process (another cloud instance, the operator CLI) wakes the others at once instead of at
 * their next safety-net poll.
 *
 * - PostgreSQL: NOTIFY inside the writing transaction (delivered only if it commits, and only
 *   after it commits) and LISTEN on a connection of its own.
 * - SQLite: no messages between processes; `PRAGMA data_version` on our write connection
 *   changes whenever another connection commits, and reading it costs no I/O. A change seen
 *   that way carries no detail (`undefined`): the listener treats it as "anything may have changed".
 */
import pg from 'pg';
import { sql } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Db } from './database.ts';

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

  private async connect(onMessage: (message: string | undefined) => void, onError: (err: Error) => void, reconnecting: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, ...(this.searchPath ? { options: `-c search_path=${this.searchPath}` } : {}) });
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

export class SqliteCommitWatcher implements NotificationTransport {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly intervalMs = 200,
  ) {}

  async send(): Promise<void> {
    // Other processes see the commit itself (data_version); there is nothing to carry.
  }

  async listen(onMessage: (message: string | undefined) => void, onError: (err: Error) => void): Promise<void> {
    let seen = this.version();
    this.timer = setInterval(() => {
      try {
        const now = this.version();
        if (now !== seen) {
          seen = now;
          onMessage(undefined);
        }
      } catch (err) {
        onError(err as Error);
      }
    }, this.intervalMs);
    this.timer.unref();
  }

  private version(): number {
    return this.sqlite.pragma('data_version', { simple: true }) as number;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}
