/**
 * Keeps finished work for its retention window and no longer (docs/retention.md): delivered
 * outbox rows, locker events, answered staff commands, marketplace Idempotency-Keys past their
 * hour, and the sync change rows of orders a locker no longer holds, raising the locker's
 * sync floor with them. Runs in every cloud process every RETENTION_INTERVAL_MS; each
 * statement deletes at most RETENTION_BATCH rows by key and the pruner yields between
 * batches, so requests keep their turn on SQLite's one write connection and several
 * processes may prune one PostgreSQL side by side.
 */
import type { Clock } from '../../shared/clock.ts';
import type { RetentionConfig } from './settings.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/platform/market-idempotency.ts';
import type { Logger } from '../logger.ts';
import { dialectOf, type Db, type DialectName } from '../storage/database.ts';
import {
  lockersDueForSyncPruning,
  pruneCommands,
  pruneEventAttempts,
  pruneIdempotencyKeys,
  pruneLockerIdempotencyKeys,
  pruneResolvedAlarms,
  pruneLockerEvents,
  pruneOutbox,
  pruneSyncChanges,
  pruneWebhookEvents,
  recordSyncCheckpoints,
} from '../storage/retention-queries.ts';
import { LOCKER_IDEMPOTENCY_WINDOW_MS } from '../services/idempotency.ts';

const DAY_MS = 86_400_000;
/** Published versions are dated once per this share of the sync window: ~30 checkpoints per locker at most. */
const CHECKPOINTS_PER_WINDOW = 30;

export interface RetentionOptions {
  outboxMs: number;
  lockerEventsMs: number;
  commandsMs: number;
  syncChangesMs: number;
  /** the spec's one hour: a key older than this starts afresh anyway */
  idempotencyMs: number;
  /** rows per statement */
  batch: number;
  /** time between runs; 0: never on its own (the operator's `retention run` still works) */
  intervalMs: number;
}

export function retentionOptions(config: RetentionConfig): RetentionOptions {
  return {
    outboxMs: config.RETENTION_OUTBOX_DAYS * DAY_MS,
    lockerEventsMs: config.RETENTION_LOCKER_EVENTS_DAYS * DAY_MS,
    commandsMs: config.RETENTION_COMMANDS_DAYS * DAY_MS,
    syncChangesMs: config.RETENTION_SYNC_CHANGES_DAYS * DAY_MS,
    idempotencyMs: IDEMPOTENCY_WINDOW_MS,
    batch: config.RETENTION_BATCH,
    intervalMs: config.RETENTION_INTERVAL_MS,
  };
}

/** What one run removed. */
export interface PruneCounts {
  outboxEvents: number;
  lockerEvents: number;
  commands: number;
  idempotencyKeys: number;
  /** the Locker API's Idempotency-Keys past their 24 hours (an extension) */
  lockerIdempotencyKeys: number;
  /** webhook subscription events past the outbox's window, all their deliveries finished (an extension) */
  webhookEvents: number;
  /** attempt counters of events since settled, and resolved alarms (the locker events' window) */
  eventAttempts: number;
  resolvedAlarms: number;
  syncChanges: number;
  /** lockers whose sync floor rose: an agent below it gets a full snapshot */
  floorsRaised: number;
}

export interface RetentionDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
}

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class RetentionPruner {
  private readonly dialect: DialectName;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PruneCounts> | undefined;
  private stopping = false;

  constructor(
    private readonly deps: RetentionDeps,
    private readonly options: RetentionOptions,
  ) {
    this.dialect = dialectOf(deps.db);
  }

  start(): void {
    this.stopping = false;
    this.schedule();
  }

  /** Stops scheduling, and ends a run in progress after its current batch. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One run now (a run already in progress is joined, not doubled). */
  runOnce(): Promise<PruneCounts> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(): void {
    if (this.stopping || this.options.intervalMs <= 0) return;
    this.timer = setTimeout(() => {
      void this.runOnce()
        .catch((err) => this.deps.logger.error('retention run failed', { err }))
        .finally(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async run(): Promise<PruneCounts> {
    const { db } = this.deps;
    const { batch } = this.options;
    const dialect = this.dialect;
    const now = this.deps.clock.now();
    const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
    const counts: PruneCounts = {
      outboxEvents: await this.drain(() => pruneOutbox(db, dialect, before(this.options.outboxMs), batch)),
      lockerEvents: await this.drain(() => pruneLockerEvents(db, dialect, before(this.options.lockerEventsMs), batch)),
      commands: await this.drain(() => pruneCommands(db, dialect, before(this.options.commandsMs), batch)),
      idempotencyKeys: await this.drain(() =>
        pruneIdempotencyKeys(db, dialect, before(this.options.idempotencyMs), batch),
      ),
      lockerIdempotencyKeys: await this.drain(() =>
        pruneLockerIdempotencyKeys(db, before(LOCKER_IDEMPOTENCY_WINDOW_MS), batch),
      ),
      webhookEvents: await this.drain(() => pruneWebhookEvents(db, before(this.options.outboxMs), batch)),
      eventAttempts: await this.drain(() =>
        pruneEventAttempts(db, dialect, before(this.options.lockerEventsMs), batch),
      ),
      resolvedAlarms: await this.drain(() =>
        pruneResolvedAlarms(db, dialect, before(this.options.lockerEventsMs), batch),
      ),
      syncChanges: 0,
      floorsRaised: 0,
    };
    await this.pruneSync(now, counts);
    if (Object.values(counts).some((n) => n > 0))
      this.deps.logger.info('retention: pruned finished rows', { ...counts });
    return counts;
  }

  /** Batches until one comes back short (or the pruner is stopping). */
  private async drain(batchOnce: () => Promise<number>): Promise<number> {
    let total = 0;
    while (!this.stopping) {
      const n = await batchOnce();
      total += n;
      if (n < this.options.batch) break;
      await yieldTurn();
    }
    return total;
  }

  private async pruneSync(now: Date, counts: PruneCounts): Promise<void> {
    const { db } = this.deps;
    const { batch, syncChangesMs } = this.options;
    const stretch = Math.floor(syncChangesMs / CHECKPOINTS_PER_WINDOW);
    await this.drain(() =>
      recordSyncCheckpoints(db, now.toISOString(), new Date(now.getTime() - stretch).toISOString(), batch),
    );
    const ripeAt = new Date(now.getTime() - syncChangesMs).toISOString();
    let afterId = '';
    while (!this.stopping) {
      const due = await lockersDueForSyncPruning(db, ripeAt, afterId, batch);
      for (const { postomatId, cutoff } of due) {
        let raised = false;
        while (!this.stopping) {
          const step = await pruneSyncChanges(db, postomatId, cutoff, batch);
          counts.syncChanges += step.deleted;
          raised ||= step.raised;
          if (step.done) break;
          await yieldTurn();
        }
        if (raised) counts.floorsRaised++;
        afterId = postomatId;
        await yieldTurn();
      }
      if (due.length < batch) break;
    }
  }
}

/** Started with the cloud (cloud/server.ts); RETENTION_INTERVAL_MS=0 leaves pruning to the operator. */
export function startRetention(
  config: RetentionConfig,
  deps: RetentionDeps,
): { pruner: RetentionPruner; stop(): Promise<void> } {
  const pruner = new RetentionPruner(
    { ...deps, logger: deps.logger.child({ component: 'retention' }) },
    retentionOptions(config),
  );
  pruner.start();
  return { pruner, stop: () => pruner.stop() };
}
