/**
 * Sends subscription deliveries: claims due ones under a lease (FOR UPDATE SKIP LOCKED on
 * PostgreSQL; SQLite's single writer elsewhere), so each attempt is made by exactly one process;
 * signs the event's stored body; records the attempt, and either finishes the delivery or plans
 * the next attempt (backoff.ts) until the retry window is spent, then dead-letters it.
 * A process that dies mid-send leaves the delivery to be claimed again when the lease ends:
 * receivers de-duplicate by the event id (at-least-once to a receiver that fails).
 */
import os from 'node:os';
import type { Db, DialectName } from '../storage/database.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import { newId } from '../storage/ids.ts';
import type { PostJson, PostResult } from '../events/http-post.ts';
import { DEFAULT_RETRY_POLICY, nextAttemptAt, type RetryPolicy } from './backoff.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import { ClaimLoop } from '../events/claim-loop.ts';
import type { WebhookDeliveryTable } from './tables.ts';

export interface SenderOptions {
  timeoutMs: number;
  concurrency: number;
  leaseMs: number;
  /** the longest wait between looks at the table (due retries are looked for when they fall due) */
  pollMs: number;
  retry: RetryPolicy;
}

export const DEFAULT_SENDER_OPTIONS: SenderOptions = { timeoutMs: 5_000, concurrency: 8, leaseMs: 60_000, pollMs: 5_000, retry: DEFAULT_RETRY_POLICY };

export interface SenderDeps {
  db: Db;
  dialect: DialectName;
  clock: Clock;
  logger: Logger;
  /** guardedPost: targets go through the outbound-target rule */
  post: PostJson;
  random?: () => number;
  options?: Partial<SenderOptions>;
}

export class WebhookSender extends ClaimLoop<WebhookDeliveryTable> {
  readonly workerId = `${os.hostname()}:${process.pid}:${newId().slice(0, 6)}`;
  private readonly options: SenderOptions;

  constructor(private readonly deps: SenderDeps) {
    const options = { ...DEFAULT_SENDER_OPTIONS, ...deps.options };
    super({ concurrency: options.concurrency, pollMs: options.pollMs, logger: deps.logger, what: 'webhook delivery' });
    this.options = options;
  }

  protected override async msUntilNextDue(): Promise<number> {
    const next = await this.deps.db.selectFrom('webhook_delivery').select('nextAttemptAt').where('state', '=', 'PENDING').orderBy('nextAttemptAt').limit(1).executeTakeFirst();
    return next ? Math.max(0, Date.parse(next.nextAttemptAt) - this.deps.clock.now().getTime()) : Infinity;
  }

  /** Claims due deliveries, and those whose holder's lease ran out. */
  async claim(limit: number): Promise<WebhookDeliveryTable[]> {
    const { db, dialect, clock } = this.deps;
    const now = clock.now();
    const nowIso = now.toISOString();
    const due = (eb: any) => eb.or([
      eb.and([eb('state', '=', 'PENDING'), eb('nextAttemptAt', '<=', nowIso)]),
      eb.and([eb('state', '=', 'SENDING'), eb('claimedUntil', '<', nowIso)]),
    ]);
    // Read first: an UPDATE would take SQLite's write lock on every poll, even with nothing due.
    if (!(await db.selectFrom('webhook_delivery').select('id').where(due).limit(1).executeTakeFirst())) return [];
    let ids = db.selectFrom('webhook_delivery').select('id').where(due).orderBy('nextAttemptAt').limit(limit);
    if (dialect === 'postgres') ids = ids.forUpdate().skipLocked();
    return db
      .updateTable('webhook_delivery')
      .set({ state: 'SENDING', claimedBy: this.workerId, claimedUntil: new Date(now.getTime() + this.options.leaseMs).toISOString() })
      .where('id', 'in', ids)
      .returningAll()
      .execute();
  }

  protected async deliver(d: WebhookDeliveryTable): Promise<void> {
    const { db, clock, logger } = this.deps;
    let result: PostResult;
    // The retry window counts from when the delivery was queued (a replay starts a new one).
    const firstAt = new Date(d.createdAt);
    try {
      const [event, sub] = await Promise.all([
        db.selectFrom('webhook_event').select('body').where('eventId', '=', d.eventId).executeTakeFirstOrThrow(),
        db.selectFrom('webhook_subscription').selectAll().where('id', '=', d.subscriptionId).executeTakeFirstOrThrow(),
      ]);
      if (sub.deletedAt) {
        result = { error: 'subscription deleted', latencyMs: 0 };
      } else {
        const now = clock.now();
        const secrets = [sub.secret, ...(sub.previousSecret && sub.previousSecretUntil && sub.previousSecretUntil > now.toISOString() ? [sub.previousSecret] : [])];
        const headers = { [SIGNATURE_HEADER]: signatureHeader(secrets, now, event.body), 'Locker-Event-Id': d.eventId };
        result = await this.deps.post(sub.url, event.body, headers, this.options.timeoutMs);
      }
    } catch (err) {
      result = { error: (err as Error).message, latencyMs: 0 };
    }
    const now = clock.now();
    const attempt = d.attempts + 1;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const gone = result.error === 'subscription deleted';
    const next = ok || gone ? undefined : nextAttemptAt(this.options.retry, firstAt, attempt, now, (this.deps.random ?? Math.random)());
    const state = ok ? 'DELIVERED' : next ? 'PENDING' : 'DEAD';
    try {
      await db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('webhook_delivery')
          .set({
            state, attempts: attempt, lastStatus: result.status ?? null, lastError: result.error ?? null, claimedBy: null, claimedUntil: null,
            nextAttemptAt: (next ?? now).toISOString(), finishedAt: next ? null : now.toISOString(),
          })
          .where('id', '=', d.id)
          .where('claimedBy', '=', this.workerId)
          .where('state', '=', 'SENDING')
          .executeTakeFirst();
        // Our lease ran out and another process claimed it: its attempt is the one on record.
        if (Number(updated.numUpdatedRows) !== 1) return;
        await trx.insertInto('webhook_attempt').values({
          id: newId(), deliveryId: d.id, attempt, at: now.toISOString(), httpStatus: result.status ?? null, error: result.error ?? null,
          latencyMs: result.latencyMs, nextAttemptAt: next?.toISOString() ?? null,
        }).execute();
      });
    } catch (err) {
      logger.error('webhook delivery result not recorded', { deliveryId: d.id, err });
    }
    logger[ok ? 'info' : 'warn']('webhook delivery', { deliveryId: d.id, eventId: d.eventId, attempt, state, status: result.status, error: result.error, latencyMs: result.latencyMs });
  }
}
