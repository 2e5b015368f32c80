/**
 * Fixed-window counters in a table of bounded size. Windows also wait in a queue in the order
 * they opened (a window that restarts joins at the back), so ended windows are dropped from its
 * front as new ones open, and when the table is full the window that opened first is dropped.
 * A flood of distinct addresses or keys therefore costs at most `capacity` entries, and each
 * request a constant amount of work. (A Map alone keeps insertion order too, but dropping its
 * first entry again and again leaves holes that every later walk from the front steps over.)
 */
import type { Clock } from '../../shared/clock.ts';

/**
 * Entries per table: a key (an address, a key id, an account digest) and two numbers, at most
 * about 300 bytes with the queue's share, so a full table is about 6 MB. More distinct senders
 * than this within one window is a botnet, which per-address counting cannot stop anyway.
 */
export const LIMIT_TABLE_CAPACITY = 20_000;

export interface LimitWindow {
  readonly key: string;
  start: number;
  count: number;
}

export class LimitWindows {
  private readonly windows = new Map<string, LimitWindow>();
  private queue: LimitWindow[] = [];
  private head = 0;

  constructor(
    readonly windowMs: number,
    private readonly clock: Clock,
    readonly capacity = LIMIT_TABLE_CAPACITY,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** How many `key` has counted in its running window (0 without one). */
  count(key: string): number {
    const w = this.windows.get(key);
    return w && this.clock.now().getTime() - w.start < this.windowMs ? w.count : 0;
  }

  /** Counts one for `key` and returns its running window. */
  add(key: string): LimitWindow {
    const now = this.clock.now().getTime();
    const w = this.windows.get(key);
    if (w && now - w.start < this.windowMs) {
      w.count++;
      return w;
    }
    this.dropEnded(now);
    while (this.windows.size >= this.capacity && this.head < this.queue.length) this.shift();
    const fresh = { key, start: now, count: 1 };
    this.windows.set(key, fresh);
    this.queue.push(fresh);
    return fresh;
  }

  /** Whole seconds until `key`'s window ends, at least 1 (what Retry-After says). */
  secondsLeft(key: string): number {
    const w = this.windows.get(key);
    const ms = w ? w.start + this.windowMs - this.clock.now().getTime() : 0;
    return Math.max(1, Math.ceil(ms / 1000));
  }

  private dropEnded(now: number): void {
    while (this.head < this.queue.length && now - this.queue[this.head].start >= this.windowMs) this.shift();
  }

  /** Drops the window at the front of the queue (from the table too, unless the key has opened a newer one). */
  private shift(): void {
    const w = this.queue[this.head];
    this.queue[this.head++] = undefined as unknown as LimitWindow;
    if (this.windows.get(w.key) === w) this.windows.delete(w.key);
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
