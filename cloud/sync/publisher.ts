/**
 * Publishes what the database says is due, in every cloud process: deltas to lockers whose
 * version moved past what was published (whoever changed it: this process, another one, the
 * operator CLI), and staff commands. Nothing it relies on lives only in this process's memory.
 * One process publishes each delta (a lease per locker, publish-claim.ts) and each command
 * (markSent); only a process that dies mid-publish leaves a delta to be sent again, which
 * agents take as a no-op. What was published is written back, and the leases given up, a
 * moment later for every locker published meanwhile in one transaction (`RELEASE_AFTER_MS`):
 * with a claim and a release per round, two of a busy cloud's three commits an order were the
 * publisher's. Until then this process remembers how far it published (`sent`); if it dies
 * first, the leases expire and the next publisher sends those deltas again.
 */
import { topics } from '../../shared/mqtt/index.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import { markPublishedReleasing, unpublishedLockers } from '../storage/locker-sync-queries.ts';
import { markSent } from '../storage/locker-command-queries.ts';
import { commandMessage, commandsDue } from './commands.ts';
import { deltaSync, fullSync } from './sync-out.ts';
import { claimPublishing, PublishLeases } from './publish-claim.ts';

/** How long a published delta's mark and lease wait to be written with others'. */
export const RELEASE_AFTER_MS = 25;

export interface PublisherDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** false when the message could not be handed to the broker */
  publish(topic: string, body: unknown): Promise<boolean>;
  connected(): boolean;
  /** a locker's delta went out (metrics: sync lag) */
  onPublished?: (postomatId: string) => void;
  /** this process's leases, shared with its unit of work, whose changes take them (publish-claim.ts) */
  leases?: PublishLeases;
}

/** A delta this process published (or gave up on, at version 0), its mark and lease not yet written back. */
interface Sent {
  version: number;
  lease: string;
}

export interface PublisherOptions {
  /** how often the database is asked what is due */
  pollMs: number;
  /** an unanswered command is sent again after this long */
  commandResendMs: number;
}

export class SyncPublisher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;
  /**
   * Whether the next round looks for staff commands: after a command was queued, at the poll
   * and at start. Rounds woken by order changes do not: two reads a round for commands that
   * are rarely there, three rounds an order, were a tenth of a busy cloud's statements.
   */
  private commandsWanted = true;
  readonly leases: PublishLeases;
  /** by locker: what went out and is not yet written back (flush) */
  private readonly sent = new Map<string, Sent>();
  private releaseTimer: NodeJS.Timeout | undefined;
  /** rounds and write-backs, one at a time: a write-back never races a round's reads */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: PublisherDeps,
    private readonly options: PublisherOptions,
  ) {
    this.leases = deps.leases ?? new PublishLeases(deps.clock);
    this.leases.active = () => !this.stopped && this.deps.connected();
  }

  /** Starts with a round at once: whatever changed while no process was publishing goes out now. */
  start(): void {
    this.stopped = false;
    this.again = true;
    this.commandsWanted = true;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    await this.serial(() => this.writeBack());
  }

  /** One round; also called by tests and benchmarks that want it now. */
  tick(): Promise<void> {
    this.running ??= this.serial(() => this.round()).finally(() => (this.running = undefined));
    return this.running;
  }

  /** What was published, written back now (tests; stop). */
  flush(): Promise<void> {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    return this.serial(() => this.writeBack());
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Something changed: run a round now rather than at the next poll (a round already running
   * may have read before the change committed, so one more follows it). `commands`: the change
   * may have queued a staff command (unknown changes, a reconnection: yes).
   */
  soon(commands = true): void {
    if (commands) this.commandsWanted = true;
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick().finally(() => this.schedule()), 0);
  }

  /** Every unanswered command of a locker that just came back, at once. */
  async sendCommands(postomatId?: string): Promise<void> {
    const now = this.deps.clock.now();
    for (const c of await commandsDue(this.deps.db, now, this.options.commandResendMs, postomatId)) {
      if (!(await markSent(this.deps.db, c, now))) continue;
      await this.deps.publish(topics.commands(c.postomatId), commandMessage(c));
      this.deps.logger.info('staff command sent', {
        lockerId: c.postomatId,
        commandId: c.id,
        type: c.type,
        orderId: c.orderId,
        attempt: c.attempts + 1,
      });
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const poll = !this.again;
    this.again = false;
    this.timer = setTimeout(
      () => {
        if (poll) this.commandsWanted = true;
        void this.tick().finally(() => this.schedule());
      },
      poll ? this.options.pollMs : 0,
    );
  }

  private async round(): Promise<void> {
    if (!this.deps.connected()) return;
    try {
      await this.publishChanges();
      if (this.commandsWanted) {
        // Cleared before the read: a command queued while it runs asks for another round.
        this.commandsWanted = false;
        await this.sendCommands().catch((err) => {
          this.commandsWanted = true;
          throw err;
        });
      }
    } catch (err) {
      this.deps.logger.error('sync publisher round failed', { err });
    }
  }

  /**
   * Deltas since what was published; the mark only ever moves forward. A locker whose lease is
   * this process's (its change took it, or an earlier round) is published at once; one with no
   * running lease is claimed first; one another process holds is skipped: that process runs
   * again if the locker changed meanwhile, since every process hears of every change.
   */
  private async publishChanges(): Promise<void> {
    const { db, clock } = this.deps;
    const due = await unpublishedLockers(db);
    const now = clock.now();
    const nowIso = now.toISOString();
    const targets: Array<{ postomatId: string; version: number; from: number; floor: number; lease: string }> = [];
    const free: string[] = [];
    for (const row of due) {
      const lease = row.publishClaimedUntil;
      if (lease && this.leases.ours(lease, nowIso)) targets.push(this.target(row, lease));
      else if (lease === null || lease < nowIso) free.push(row.postomatId);
    }
    const claim = await claimPublishing(db, free, now, this.leases.leaseMs, this.leases.mark);
    for (const l of claim.lockers) targets.push(this.target(l, claim.until));
    let linkDown = false;
    for (const { postomatId, version, from, floor, lease } of targets) {
      const sent = this.sent.get(postomatId);
      if (linkDown) {
        // Not sent: its lease is given up with the others', so any process may send it.
        if (!sent) this.sent.set(postomatId, { version: 0, lease });
        continue;
      }
      if (from >= version) {
        // Out already (a lease its change took for a delta a round had sent): given up with the others.
        if (!sent) this.sent.set(postomatId, { version: 0, lease });
        continue;
      }
      const msg =
        from < floor ? await fullSync(db, postomatId, version) : await deltaSync(db, postomatId, from, version);
      if (!(await this.deps.publish(topics.sync(postomatId), msg))) {
        linkDown = true;
        if (!sent) this.sent.set(postomatId, { version: 0, lease });
        continue;
      }
      this.sent.set(postomatId, { version, lease });
      this.deps.onPublished?.(postomatId);
    }
    if (this.sent.size && !this.releaseTimer)
      this.releaseTimer = setTimeout(() => {
        this.releaseTimer = undefined;
        void this.serial(() => this.writeBack());
      }, RELEASE_AFTER_MS);
  }

  /** A due locker as this round publishes it: from what went out last, by this process or as written. */
  private target(
    row: { postomatId: string; version: number | string; publishedVersion: number | string; floor: number | string },
    lease: string,
  ) {
    const written = Number(row.publishedVersion);
    return {
      postomatId: row.postomatId,
      version: Number(row.version),
      from: Math.max(written, this.sent.get(row.postomatId)?.version ?? 0),
      floor: Number(row.floor),
      lease,
    };
  }

  /** Marks and leases of what went out, in one transaction; on failure they wait for the next one. */
  private async writeBack(): Promise<void> {
    if (!this.sent.size) return;
    const batch = [...this.sent].map(([postomatId, s]) => ({ postomatId, version: s.version, lease: s.lease }));
    try {
      await markPublishedReleasing(this.deps.db, batch);
      for (const b of batch) this.sent.delete(b.postomatId);
    } catch (err) {
      this.deps.logger.error('sync publisher could not write back what it published', { err, lockers: batch.length });
      if (!this.stopped && !this.releaseTimer)
        this.releaseTimer = setTimeout(() => {
          this.releaseTimer = undefined;
          void this.serial(() => this.writeBack());
        }, this.options.pollMs);
    }
  }
}
