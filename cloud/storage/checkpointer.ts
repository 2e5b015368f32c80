/**
 * SQLite's checkpoints, off the event loop. A checkpoint copies the write-ahead log's pages into
 * the database file and syncs both; SQLite runs one inside a COMMIT every 1,000 pages by default,
 * and under order creates (~18 pages each) that was ~170 µs of every create spent with the event
 * loop stopped, in stops of 10-20 ms (bench/README.md). Here a worker thread with its own
 * connection runs them (PASSIVE: it never waits for, nor holds up, the writer or the readers),
 * nudged after commits and at most once per `minIntervalMs`. The write connection keeps a far
 * larger automatic checkpoint as a backstop (`BACKSTOP_PAGES`), so the log stays bounded if the
 * worker falls behind or dies.
 *
 * The worker is plain JavaScript evaluated from a string: it needs only better-sqlite3, and so
 * runs the same from source (tsx) and from the bundle, without a loader of its own.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The write connection's own automatic checkpoint, in pages: a backstop only. */
export const BACKSTOP_PAGES = 10_000;

export interface CheckpointStats {
  /** checkpoints run by the worker */
  checkpoints: number;
  /** checkpoints that failed (the backstop keeps the log bounded meanwhile) */
  failures: number;
}

const WORKER = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const SQLite = (await import(workerData.driver)).default;
  const db = new SQLite(workerData.file, { timeout: 0 });
  db.pragma('busy_timeout = 0');
  // Checkpoints sync the log before copying and the database file after (NORMAL and FULL both).
  db.pragma('synchronous = NORMAL');
  parentPort.on('message', (message) => {
    if (message === 'close') {
      db.close();
      parentPort.close();
      return;
    }
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ ok: true, ...result });
    } catch (err) {
      parentPort.postMessage({ ok: false, error: String(err && err.message || err) });
    }
  });
  parentPort.postMessage({ ready: true });
})();`;

export class Checkpointer {
  readonly stats: CheckpointStats = { checkpoints: 0, failures: 0 };
  private readonly worker: Worker;
  private inFlight = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private lastAt = 0;
  private closed = false;
  private readonly exited: Promise<void>;

  constructor(
    file: string,
    private readonly minIntervalMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {
    const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    // No execArgv: the cloud's own (tsx's loader when run from source) would start a loader thread here too.
    this.worker = new Worker(WORKER, { eval: true, workerData: { driver, file }, execArgv: [] });
    this.worker.unref();
    this.worker.on('message', (message: { ok?: boolean }) => this.finished(message));
    // A dead worker leaves the backstop checkpoint in charge; the cloud keeps running.
    this.worker.on('error', () => {
      this.stats.failures++;
      this.closed = true;
    });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** Asks for a checkpoint soon (commits happened); requests meanwhile are coalesced into one. */
  nudge(): void {
    if (this.closed) return;
    if (this.inFlight || this.timer) {
      this.again = true;
      return;
    }
    const wait = this.lastAt + this.minIntervalMs - this.now();
    if (wait <= 0) this.send();
    else {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.send();
      }, wait);
      this.timer.unref();
    }
  }

  private send(): void {
    if (this.closed) return;
    this.inFlight = true;
    this.again = false;
    this.lastAt = this.now();
    this.worker.postMessage('checkpoint');
  }

  private finished(message: { ok?: boolean; ready?: boolean }): void {
    if (message.ready) return;
    this.inFlight = false;
    if (message.ok) this.stats.checkpoints++;
    else this.stats.failures++;
    if (this.again) this.nudge();
  }

  /** Stops the worker after the checkpoint under way (its connection closed, the log left to the writer). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.closed) {
      this.closed = true;
      this.worker.postMessage('close');
    }
    // Unreferenced while it runs, so that it never keeps a process alive; closing waits for it.
    this.worker.ref();
    await this.exited;
  }
}
