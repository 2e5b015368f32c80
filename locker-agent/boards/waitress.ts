import type { Clock } from '../clock.ts';

export class TimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what}: no answer within ${ms} ms`);
  }
}

interface Waiter<T> {
  matcher: (value: T) => boolean;
  resolve: (value: T) => void;
  timer: unknown;
}

/** Register "wait for the frame that matches", resolved by resolve(frame) or rejected on timeout. */
export class Waitress<T> {
  private readonly waiters = new Set<Waiter<T>>();

  constructor(private readonly clock: Clock) {}

  waitFor(matcher: (value: T) => boolean, ms: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        matcher,
        resolve,
        timer: this.clock.setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new TimeoutError(what, ms));
        }, ms),
      };
      this.waiters.add(waiter);
    });
  }

  /** Returns true when a waiter took the value. */
  resolve(value: T): boolean {
    for (const waiter of this.waiters) {
      if (!waiter.matcher(value)) continue;
      this.clock.clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(value);
      return true;
    }
    return false;
  }
}
