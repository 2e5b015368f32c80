/**
 * The loop both outbound senders share (the outbox dispatcher, the webhook subscriptions'
 * sender): look for claimable rows now and then, or at once when woken after a commit; send at
 * most `concurrency` at a time; on stop, wait for the sends in flight.
 */
import type { Logger } from '../logger.ts';

const MIN_WAIT_MS = 20;

export abstract class ClaimLoop<Row> {
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private running = false;
  private ticking = false;

  constructor(
    private readonly loop: { concurrency: number; pollMs: number; logger: Logger; what: string },
  ) {}

  /** Claims up to `limit` rows for this process. */
  abstract claim(limit: number): Promise<Row[]>;
  protected abstract deliver(row: Row): Promise<void>;
  /** How long until the next row falls due, when sooner than the poll (retries planned ahead). */
  protected async msUntilNextDue(): Promise<number> {
    return Infinity;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops claiming, and waits for the sends in flight. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  /** Looks for new rows now rather than at the next poll. */
  wake(): void {
    if (this.running) this.schedule(0);
  }

  private schedule(ms: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (!this.running || this.ticking) return;
    this.ticking = true;
    let wait = this.loop.pollMs;
    try {
      const room = this.loop.concurrency - this.inFlight.size;
      if (room > 0) {
        for (const row of await this.claim(room)) {
          const p = this.deliver(row).finally(() => {
            this.inFlight.delete(p);
            this.wake();
          });
          this.inFlight.add(p);
        }
        // A row due now that this claim could not take (another process holds it) is looked at
        // again shortly, not in a busy loop; with no room, a finished send wakes the loop.
        wait = Math.min(wait, Math.max(MIN_WAIT_MS, await this.msUntilNextDue()));
      }
    } catch (err) {
      this.loop.logger.error(`${this.loop.what} claim failed`, { err });
    } finally {
      this.ticking = false;
      if (this.running) this.schedule(wait);
    }
  }
}
