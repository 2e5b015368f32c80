/**
 * Publishes what the database says is due, in every cloud process: deltas to lockers whose
 * version moved past what was published (whoever changed it: this process, another one, the
 * operator CLI), and staff commands. Nothing it relies on lives only in this process's memory.
 * One process publishes each delta (a lease per locker, publish-claim.ts) and each command
 * (markSent); only a process that dies mid-publish leaves a delta to be sent again, which
 * agents take as a no-op.
 */
import { topics } from '../../shared/mqtt/index.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import { unpublishedLockers } from '../storage/locker-sync-queries.ts';
import { markSent } from '../storage/locker-command-queries.ts';
import { commandMessage, commandsDue } from './commands.ts';
import { deltaSync, fullSync } from './sync-out.ts';
import { claimPublishing, releasePublishing } from './publish-claim.ts';

export interface PublisherDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** false when the message could not be handed to the broker */
  publish(topic: string, body: unknown): Promise<boolean>;
  connected(): boolean;
  /** a locker's delta went out (metrics: sync lag) */
  onPublished?: (postomatId: string) => void;
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

  constructor(
    private readonly deps: PublisherDeps,
    private readonly options: PublisherOptions,
  ) {}

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
  }

  /** One round; also called by tests and benchmarks that want it now. */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
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
   * Deltas since what was published; the mark only ever moves forward. A locker another process
   * is publishing is skipped: that process runs again if the locker changed meanwhile, since
   * every process hears of every change (publish-claim.ts).
   */
  private async publishChanges(): Promise<void> {
    const { db } = this.deps;
    const due = await unpublishedLockers(db);
    const claim = await claimPublishing(
      db,
      due.map((row) => row.postomatId),
      this.deps.clock.now(),
    );
    const published: Array<{ postomatId: string; version: number }> = [];
    try {
      for (const { postomatId, version, publishedVersion, floor } of claim.lockers) {
        const msg =
          publishedVersion < floor
            ? await fullSync(db, postomatId, version)
            : await deltaSync(db, postomatId, publishedVersion, version);
        if (!(await this.deps.publish(topics.sync(postomatId), msg))) return;
        published.push({ postomatId, version });
        this.deps.onPublished?.(postomatId);
      }
    } finally {
      await releasePublishing(db, claim, published);
    }
  }
}
