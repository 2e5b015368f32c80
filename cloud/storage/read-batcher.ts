/**
 * When a storage's prepared reads run (SQLite's read-only connection, prepared.ts). One
 * scheduler per storage, chosen where the storage is opened (`SQLITE_READS`, config.ts).
 *
 * - `EndOfTurnReads` (the default): the reads asked for during one turn of the event loop run
 *   together at its end. Under load one turn takes in every request that is ready (tens of them
 *   at 50 connections). Run where it is asked for, each read starts with SQLite's code and the
 *   B-tree pages of the last read evicted from the CPU caches by the HTTP work in between: a
 *   single-order lookup took 13 µs in a loop and 37 µs under load. Queued and run back to back
 *   in the check phase (setImmediate, after the poll phase has parsed the turn's requests), the
 *   reads find the caches warm, and the answers that follow are written back to back too
 *   (bench:api measures it against `InPlaceReads`, bench/README.md). A lone request waits only
 *   for the rest of its own turn.
 * - `InPlaceReads`: each read where it is asked for.
 *
 * Read-your-writes: a transaction never reaches a scheduler. Its queries run on the write
 * connection in Kysely's queue (prepared.ts finds no direct reader for a transaction), so what
 * a transaction wrote is what it reads.
 */
import { DEFAULT_BUSY_RETRY, isBusy } from './sqlite-busy.ts';

export interface ReadScheduler {
  /** Runs `job`, now or later; `job` never throws. */
  schedule(job: () => void): void;
}

export class EndOfTurnReads implements ReadScheduler {
  private queue: Array<() => void> = [];

  schedule(job: () => void): void {
    if (this.queue.length === 0) setImmediate(() => this.run());
    this.queue.push(job);
  }

  private run(): void {
    // Reads queued while these run (none today: a read does not start another) go to the next turn.
    for (const job of this.queue.splice(0)) job();
  }
}

export class InPlaceReads implements ReadScheduler {
  schedule(job: () => void): void {
    job();
  }
}

export type ReadsKind = 'end-of-turn' | 'in-place';

export const readScheduler = (kind: ReadsKind): ReadScheduler =>
  kind === 'in-place' ? new InPlaceReads() : new EndOfTurnReads();

/**
 * A synchronous read as a promise, run by `scheduler`. Busy is rare for a WAL reader (another
 * process checkpointing): the read then waits without holding the loop and is scheduled again,
 * on its own connection, never queued behind this process's writes.
 */
export function scheduledRead<T>(scheduler: ReadScheduler, read: () => T, retry = DEFAULT_BUSY_RETRY): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let pause = 1;
    const attempt = () =>
      scheduler.schedule(() => {
        try {
          resolve(read());
        } catch (err) {
          if (!isBusy(err) || performance.now() - started >= retry.deadlineMs) return reject(err);
          setTimeout(attempt, pause);
          pause = Math.min(pause * 2, retry.maxPauseMs);
        }
      });
    attempt();
  });
}
