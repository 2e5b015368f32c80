/**
 * Fixed-window counters in a table of bounded size. The table is kept in the order windows
 * opened (a window that restarts moves to the back), so expired windows sit at the front and
 * are dropped from there as new ones open; when the table is full the oldest window is dropped.
 * A flood of distinct addresses or keys therefore costs at most `capacity` entries, never more.
 */
import type { Clock } from '../clock.ts';

/** Entries per table: each is a short key and two numbers, about 150 bytes, so a full table is about 7.5 MB. */
export const LIMIT_TABLE_CAPACITY = 50_000;

export interface LimitWindow {
  start: number;
  count: number;
}

export class LimitWindows {
  private readonly windows = new Map<string, LimitWindow>();

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
    if (w) this.windows.delete(key);
    this.dropExpired(now);
    if (this.windows.size >= this.capacity) this.windows.delete(this.windows.keys().next().value!);
    const fresh = { start: now, count: 1 };
    this.windows.set(key, fresh);
    return fresh;
  }

  /** Whole seconds until `key`'s window ends, at least 1 (what Retry-After says). */
  secondsLeft(key: string): number {
    const w = this.windows.get(key);
    const ms = w ? w.start + this.windowMs - this.clock.now().getTime() : 0;
    return Math.max(1, Math.ceil(ms / 1000));
  }

  private dropExpired(now: number): void {
    for (const [key, w] of this.windows) {
      if (now - w.start < this.windowMs) return;
      this.windows.delete(key);
    }
  }
}
