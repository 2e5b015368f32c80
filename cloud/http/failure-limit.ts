/**
 * Failed attempts per identity (a client address, a sign-in account): once `max` failed in a
 * window, the identity is refused with 429 before anything is looked up, until the window ends
 * by itself. Only failures count, so a client that authenticates is never slowed by this.
 *
 * An attempt is counted when it starts and taken back when it succeeds: counted only on failure,
 * a burst of concurrent guesses would all pass the check before the first one failed.
 */
import type { Clock } from '../../shared/clock.ts';
import { LimitWindows, LIMIT_TABLE_CAPACITY, type LimitWindow } from './limit-windows.ts';
import { tooManyRequests } from './rate-limit.ts';

export class FailureLimit {
  readonly windows: LimitWindows;

  /** `max` 0 switches the limit off. */
  constructor(
    readonly max: number,
    windowMs: number,
    clock: Clock,
    capacity = LIMIT_TABLE_CAPACITY,
  ) {
    this.windows = new LimitWindows(windowMs, clock, capacity);
  }

  /** Throws 429 RATE_LIMIT_EXCEEDED (with Retry-After) when `key` has used up its failures. */
  check(key: string): void {
    // An empty table (the usual case) answers without reading the clock.
    if (this.max > 0 && this.windows.size > 0 && this.windows.count(key) >= this.max)
      throw tooManyRequests(this.windows.secondsLeft(key));
  }

  /** Checks, then counts an attempt that is about to look something up; it stays a failure unless `succeeded`. */
  attempt(key: string): LimitWindow | undefined {
    if (this.max <= 0) return undefined;
    this.check(key);
    return this.windows.add(key);
  }

  succeeded(attempt: LimitWindow | undefined): void {
    if (attempt && attempt.count > 0) attempt.count--;
  }
}
