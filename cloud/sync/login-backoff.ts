/**
 * Failed MQTT logins per client address (590 a second from one address were once checked one by
 * one, each costing a scrypt and a warning line). Once an address has failed `max` times in a
 * window, its CONNECTs are refused until the window ends by itself, before any password is
 * looked at. The windows are HTTP's bounded tables (limit-windows.ts): a flood of distinct
 * addresses costs at most their capacity.
 *
 * An attempt is counted when its check starts and taken back when it succeeds, as on HTTP
 * (failure-limit.ts): counted only on failure, a burst of concurrent guesses would all be
 * checked before the first one failed.
 */
import type { Clock } from '../../shared/clock.ts';
import { LimitWindows, type LimitWindow } from '../http/limit-windows.ts';

export class LoginBackoff {
  private readonly windows: LimitWindows;

  /** `max` 0 switches the backoff off. */
  constructor(
    readonly max: number,
    windowMs: number,
    clock: Clock,
  ) {
    this.windows = new LimitWindows(windowMs, clock);
  }

  /** True while `address` has used up its failures. */
  blocked(address: string): boolean {
    return this.max > 0 && this.windows.size > 0 && this.windows.count(address) >= this.max;
  }

  /** Counts a check that is about to run; it stays a failure unless `succeeded`. */
  attempt(address: string): LimitWindow | undefined {
    return this.max > 0 ? this.windows.add(address) : undefined;
  }

  succeeded(attempt: LimitWindow | undefined): void {
    if (attempt && attempt.count > 0) attempt.count--;
  }
}
