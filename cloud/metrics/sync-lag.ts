/**
 * Sync lag: from a change to a locker's orders to its delta being published. Change rows carry
 * no time, so the start is when this instance heard of the change: right after its own commit,
 * or from another instance's notification (milliseconds after that commit). A change published
 * by another instance is never observed here; its entry ages out.
 */
import type { Histogram } from 'prom-client';

/** Lockers waiting at most; beyond it new changes are not timed (a fleet-wide change is 'all', not timed either). */
const MAX_WAITING = 10_000;
/** An entry older than this was published elsewhere (or never will be here): dropped. */
const FORGET_MS = 10 * 60_000;

export class SyncLag {
  private readonly since = new Map<string, number>();

  constructor(
    private readonly histogram: Histogram<never>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Lockers changed by a commit; the first unpublished change of each starts its clock. */
  changed(lockers: readonly string[]): void {
    const t = this.now();
    if (this.since.size + lockers.length > MAX_WAITING) this.forgetOld(t);
    for (const id of lockers) if (!this.since.has(id) && this.since.size < MAX_WAITING) this.since.set(id, t);
  }

  /** A locker's delta went out. */
  published(lockerId: string): void {
    const start = this.since.get(lockerId);
    if (start === undefined) return;
    this.since.delete(lockerId);
    this.histogram.observe((this.now() - start) / 1000);
  }

  private forgetOld(t: number): void {
    for (const [id, start] of this.since) if (t - start > FORGET_MS) this.since.delete(id);
  }
}
