/**
 * The loop both outbound senders share (the outbox dispatcher, the webhook subscriptions'
 * sender): look for claimable rows now and then, or at once when woken after a commit; claim
 * them in batches (one statement claims many); send at most `concurrency` at a time and at most
 * `perOrigin` to one receiver; settle the outcomes of one event-loop turn with one statement; on
 * stop, wait for the sends in flight, settle them and hand back what was claimed but not sent.
 *
 * What a receiver that hangs can hold, whatever its backlog: `perOrigin` sends, each one socket
 * and one timer until the timeout, and nothing more once its sends are slow: its waiting rows
 * are handed back and its targets left out of the claims (`busy`), so the others' events keep
 * flowing through the rest of `concurrency`, and the database sees a claim per freed batch of
 * sends, not the same rows claimed over and over.
 */
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';

const MIN_WAIT_MS = 20;

/** A claimed row, ready to send. */
export interface Claimed<Item> {
  id: string;
  item: Item;
  /** whose sends are bounded together (the receiver's origin) */
  origin: string;
  /** what `claim` leaves out while the origin is slow (the row's target or subscription) */
  key: string;
  /** the claim's end (ms since the epoch): a send starts only if it ends before that */
  claimedUntil: number;
}

export interface ClaimLoopOptions {
  concurrency: number;
  /** sends to one origin at the same time (and kept-alive connections to it) */
  perOrigin: number;
  /** rows held at most (sending and waiting to send) */
  maxHeld: number;
  pollMs: number;
  /** the longest a send takes: a waiting row whose claim ends sooner is handed back */
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  what: string;
}

/**
 * The bounds that follow from `concurrency`: half of it per origin; at most this many rows held
 * (claimed ahead for many rounds of sends) when sends finish fast, so that claims and settles
 * (each a commit, a disk flush with SQLite's synchronous=FULL) carry many rows each: at 32 rows
 * a claim, the claims, settles and commits cost more than the sends (bench:events); at 128,
 * about half as much a row. How many are held is what the sends use (`ClaimLoop.holdTarget`).
 */
export function claimLoopBounds(concurrency: number): { perOrigin: number; maxHeld: number } {
  return { perOrigin: Math.max(1, Math.ceil(concurrency / 2)), maxHeld: concurrency * BATCHES_AHEAD };
}
const BATCHES_AHEAD = 16;

/**
 * Outcomes wait at most this long for others to be settled with (each settle is a commit, and
 * SQLite's synchronous=FULL makes each commit a disk flush): a crash in that window sends the
 * rows again once their claim ends, as a crash between send and settle always did.
 */
const SETTLE_DELAY_MS = 20;

interface Sending {
  key: string;
  /** performance.now() at its start: a send older than `slowMs` marks its origin slow */
  startedAt: number;
}

export abstract class ClaimLoop<Row, Item, Outcome> {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sending = new Map<string, Set<Sending>>();
  /** claimed, not yet sent, in claim order */
  private queue: Claimed<Item>[] = [];
  private outcomes: Outcome[] = [];
  private settling?: Promise<void>;
  private settleTimer?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private running = false;
  private ticking = false;
  /** woken while a tick ran: look again right after it */
  private again = false;
  private readonly slowMs: number;
  private readonly minHold: number;
  /** sends finished in the current second and in the one before (what the loop holds rows for) */
  private finished = { since: 0, count: 0, before: 0 };

  constructor(protected readonly loop: ClaimLoopOptions) {
    this.slowMs = Math.min(1_000, Math.max(1, Math.floor(loop.timeoutMs / 2)));
    this.minHold = Math.min(loop.maxHeld, Math.max(1, loop.concurrency * 2));
  }

  /** Claims up to `limit` due rows for this process, none whose key is in `busy` (one statement). */
  abstract claim(limit: number, busy?: readonly string[], db?: Db): Promise<Row[]>;
  /** Runs `work` in one transaction: a settle and the claim after it make one commit. */
  protected abstract transaction<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** What the sends of claimed rows need, read for the whole batch at once. */
  protected abstract prepare(rows: Row[]): Promise<Claimed<Item>[]>;
  /** Sends one claimed row; its outcome is settled with others' (`settle`). Never throws. */
  protected abstract deliver(claimed: Claimed<Item>): Promise<Outcome>;
  /** Records outcomes, only for rows this process still holds. */
  protected abstract settle(outcomes: Outcome[], db?: Db): Promise<void>;
  /** Hands claimed rows back unsent, only those this process still holds. */
  protected abstract release(ids: string[]): Promise<void>;
  /** How long until the next row falls due, when sooner than the poll (retries planned ahead). */
  protected async msUntilNextDue(): Promise<number> {
    return Infinity;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops claiming, waits for the sends in flight, settles them, and hands back the rest. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    // A claim under way finishes first: its rows are sent, or handed back below.
    await this.current;
    await Promise.allSettled([...this.inFlight]);
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    await this.flush();
    await this.giveBack(this.queue.splice(0));
  }

  /** Looks for new rows now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    if (this.ticking) this.again = true;
    else this.schedule(0);
  }

  /** Rows held: sending and waiting to send. */
  get held(): number {
    return this.inFlight.size + this.queue.length;
  }

  private schedule(ms: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.current = this.tick();
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (!this.running || this.ticking) return;
    this.ticking = true;
    this.again = false;
    let wait = this.loop.pollMs;
    try {
      await this.pump();
      // Claim when a batch's worth is free, or nothing waits: one claim per batch of sends.
      const hold = this.holdTarget();
      const room = hold - this.held;
      if (room > 0 && (room >= hold / 2 || this.queue.length === 0)) {
        const rows = await this.settleAndClaim(room);
        if (rows.length) {
          const claimed = await this.prepare(rows);
          this.queue.push(...claimed);
          await this.pump();
        }
        // A row due now that this claim could not take (another process holds it) is looked at
        // again shortly, not in a busy loop; with no room, a finished send wakes the loop.
        wait = Math.min(wait, Math.max(MIN_WAIT_MS, await this.msUntilNextDue()));
      }
      // A send that hangs is noticed in time to hand back its origin's waiting rows.
      if (this.inFlight.size) wait = Math.min(wait, this.slowMs);
    } catch (err) {
      this.loop.logger.error(`${this.loop.what} claim failed`, { err });
    } finally {
      this.ticking = false;
      if (this.running) this.schedule(this.again ? 0 : wait);
    }
  }

  /**
   * The outcomes waiting to be settled and the next claim, in one transaction: each commit is a
   * disk flush (SQLite, synchronous=FULL), and at a few thousand events a second the flushes,
   * not the statements, are what costs. If it fails, the outcomes wait for the next settle.
   */
  private async settleAndClaim(room: number): Promise<Row[]> {
    while (this.settling) await this.settling;
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const outcomes = this.outcomes.splice(0);
    const busy = this.slowKeys();
    if (!outcomes.length) return this.claim(room, busy);
    try {
      return await this.transaction(async (db) => {
        await this.settle(outcomes, db);
        return this.claim(room, busy, db);
      });
    } catch (err) {
      this.outcomes.unshift(...outcomes);
      this.outcome(undefined);
      throw err;
    }
  }

  /**
   * How many rows to hold (sending and waiting): about half a second of the sends that finished
   * lately, between twice `concurrency` and `maxHeld`; a claim comes when half of it is free.
   * Rows claimed beyond what the sends use are handed back (a receiver that hangs sends a few a
   * timeout): a hold sized by the fast case made each of those claims and hand-backs hundreds of
   * row writes, and the API beside it paid for them.
   */
  private holdTarget(): number {
    this.countFinished(0);
    const perSecond = Math.max(this.finished.count, this.finished.before);
    return Math.min(this.loop.maxHeld, Math.max(this.minHold, Math.ceil(perSecond / 2)));
  }

  private countFinished(n = 1): void {
    const now = performance.now();
    const f = this.finished;
    if (now - f.since >= 1_000) {
      f.before = now - f.since < 2_000 ? f.count : 0;
      f.since = now;
      f.count = 0;
    }
    f.count += n;
  }

  /** Origins with a send in flight longer than `slowMs`. */
  private slowOrigins(): Set<string> {
    const since = performance.now() - this.slowMs;
    const slow = new Set<string>();
    for (const [origin, sends] of this.sending) {
      for (const s of sends) if (s.startedAt <= since) slow.add(origin);
    }
    return slow;
  }

  /** The keys of slow origins' sends: left out of claims until those answer or time out. */
  private slowKeys(): string[] {
    const keys = new Set<string>();
    for (const origin of this.slowOrigins()) for (const s of this.sending.get(origin)!) keys.add(s.key);
    return [...keys];
  }

  /** Starts what the bounds allow, in claim order; hands back what cannot start in time. */
  private async pump(): Promise<void> {
    const now = this.loop.clock.now().getTime();
    const slow = this.slowOrigins();
    const back: Claimed<Item>[] = [];
    const keep: Claimed<Item>[] = [];
    for (const c of this.queue) {
      const sends = this.sending.get(c.origin)?.size ?? 0;
      if (c.claimedUntil - now <= this.loop.timeoutMs || slow.has(c.origin)) back.push(c);
      else if (this.inFlight.size < this.loop.concurrency && sends < this.loop.perOrigin) this.begin(c);
      else keep.push(c);
    }
    this.queue = keep;
    await this.giveBack(back);
  }

  /**
   * Starts the first waiting row the bounds allow, in claim order, as `pump` would: a finished
   * send frees one place, so the scan stops at the first row it starts (in the usual case the
   * first of the queue). A row whose claim ends too soon, or whose origin turned slow, is left
   * for the next `pump` to hand back.
   */
  private startNext(): void {
    if (this.inFlight.size >= this.loop.concurrency) return;
    const now = this.loop.clock.now().getTime();
    const since = performance.now() - this.slowMs;
    const full = new Set<string>();
    for (let i = 0; i < this.queue.length; i++) {
      const c = this.queue[i];
      if (full.has(c.origin)) continue;
      const sends = this.sending.get(c.origin);
      if (sends && (sends.size >= this.loop.perOrigin || [...sends].some((s) => s.startedAt <= since))) {
        full.add(c.origin);
        continue;
      }
      if (c.claimedUntil - now <= this.loop.timeoutMs) continue;
      this.queue.splice(i, 1);
      this.begin(c);
      return;
    }
  }

  private async giveBack(rows: Claimed<Item>[]) {
    if (!rows.length) return;
    await this.release(rows.map((c) => c.id)).catch((err) =>
      this.loop.logger.error(`${this.loop.what} release failed`, { err }),
    );
  }

  private begin(c: Claimed<Item>) {
    const send: Sending = { key: c.key, startedAt: performance.now() };
    let sends = this.sending.get(c.origin);
    if (!sends) this.sending.set(c.origin, (sends = new Set()));
    sends.add(send);
    const p = this.deliver(c)
      .then(
        (outcome) => this.outcome(outcome),
        (err) => this.loop.logger.error(`${this.loop.what} send failed`, { err }),
      )
      .finally(() => {
        this.inFlight.delete(p);
        sends.delete(send);
        if (!sends.size && this.sending.get(c.origin) === sends) this.sending.delete(c.origin);
        if (!this.running) return;
        // The next waiting row starts now; a claim follows when a batch's worth is free. The
        // whole queue is looked over on the loop's ticks, not after every send: with hundreds
        // of rows held, that scan per send cost more than the send.
        this.startNext();
        this.countFinished();
        const hold = this.holdTarget();
        if (hold - this.held >= hold / 2 || !this.queue.length) this.wake();
      });
    this.inFlight.add(p);
  }

  /**
   * Outcomes are settled together: with the next claim (one commit), or SETTLE_DELAY_MS after
   * the first of them when no claim comes, or at once when nothing else is in flight.
   */
  private outcome(outcome: Outcome | undefined) {
    if (outcome !== undefined) this.outcomes.push(outcome);
    if (!this.inFlight.size || this.outcomes.length >= this.loop.maxHeld) {
      clearTimeout(this.settleTimer);
      this.settleTimer = undefined;
      void this.flush();
    } else {
      this.settleTimer ??= setTimeout(() => {
        this.settleTimer = undefined;
        void this.flush();
      }, SETTLE_DELAY_MS);
    }
  }

  private async flush(): Promise<void> {
    // One settle at a time: what arrives meanwhile goes in the next.
    while (this.settling) await this.settling;
    const batch = this.outcomes.splice(0);
    if (!batch.length) return;
    this.settling = this.settle(batch)
      .catch((err) => this.loop.logger.error(`${this.loop.what} results not recorded`, { err, count: batch.length }))
      .finally(() => {
        this.settling = undefined;
      });
    await this.settling;
  }
}
