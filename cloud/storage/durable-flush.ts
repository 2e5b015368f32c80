/**
 * Makes SQLite's commits durable off the event loop. The write connection runs WAL with
 * `synchronous = NORMAL`: a COMMIT writes its frames to the log and returns without waiting for
 * the disk (checkpoints still sync, so the file is never left inconsistent). Before anyone hears
 * that a write succeeded, one `fdatasync` of the log, run on libuv's thread pool, carries it to
 * the disk: an answered write survives a power cut exactly as with `synchronous = FULL`, but the
 * event loop no longer stops for each flush (~8 ms a COMMIT on this machine's disk), and the
 * commits made while one flush runs share the next.
 *
 * A flush covers only the commits made before it started, so a request arriving while one runs
 * waits for the following one; all requests arriving meanwhile share that one.
 */
import fs from 'node:fs';
import { deferred, type Deferred } from './deferred.ts';

/** Brings the file's written data to the disk; the default is `fdatasync` on the thread pool. */
export type Sync = (fd: number) => Promise<void>;

export const fdatasync: Sync = (fd) =>
  new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

export interface FlushStats {
  /** flushes run */
  flushes: number;
  /** requests they answered */
  requests: number;
}

/** Those answered by one flush. */
interface Round extends Deferred {
  count: number;
}

export class DurableFlush {
  readonly stats: FlushStats = { flushes: 0, requests: 0 };
  private fd: number | undefined;
  private looping = false;
  /** the loop of flushes, settled when it has nothing left to do */
  private loop: Promise<void> = Promise.resolve();
  /** those waiting for the flush after the running one */
  private next: Round | undefined;
  private closed = false;

  /**
   * @param path the write-ahead log (`<database>-wal`); opened at the first flush, since SQLite
   *   creates it with the first write. A database without one (`:memory:`) needs no flush.
   */
  constructor(
    private readonly path: string | undefined,
    private readonly sync: Sync = fdatasync,
  ) {}

  /** Settles once every commit made before this call is on the disk; fails if the flush did. */
  flush(): Promise<void> {
    if (this.path === undefined) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    this.next ??= { ...deferred(), count: 0 };
    const mine = this.next;
    mine.count++;
    if (!this.looping) {
      this.looping = true;
      this.loop = this.run();
    }
    return mine.promise;
  }

  private async run(): Promise<void> {
    try {
      while (this.next) {
        const round = this.next;
        this.next = undefined;
        try {
          const fd = this.open();
          if (fd !== undefined) await this.sync(fd);
          this.stats.flushes++;
          this.stats.requests += round.count;
          round.resolve();
        } catch (err) {
          // The disk refused: these writes are committed but perhaps not durable. Their callers
          // hear the error (an ambiguous outcome, like a timeout); the next round tries afresh.
          round.reject(err);
        }
      }
    } finally {
      this.looping = false;
    }
  }

  private open(): number | undefined {
    if (this.fd !== undefined) return this.fd;
    try {
      // Read-only suffices: fdatasync acts on the file, not on the descriptor's writes.
      this.fd = fs.openSync(this.path!, 'r');
    } catch (err) {
      // No log yet: nothing was ever written through it, so nothing waits for the disk.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return this.fd;
  }

  /** Closes the log's descriptor once the flush under way (if any) is done; later flushes fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.loop;
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
