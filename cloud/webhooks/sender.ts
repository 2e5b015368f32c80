/**
 * Sends subscription deliveries: claims due ones in batches under a lease (FOR UPDATE SKIP LOCKED on
 * PostgreSQL; SQLite's single writer elsewhere), so each attempt is made by exactly one process;
 * signs the event's stored body; records the attempt, and either finishes the delivery or plans
 * the next attempt (backoff.ts) until the retry window is spent, then dead-letters it. The
 * attempts of one event-loop turn are recorded together (one UPDATE, one INSERT). Sends are
 * bounded in all and per receiver (claim-loop.ts), over kept-alive connections.
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
import { ClaimLoop, claimLoopBounds, type Claimed } from '../events/claim-loop.ts';
import type { WebhookDeliveryTable, WebhookSubscriptionTable } from './tables.ts';
import {
  claimDeliveries,
  eventBodies,
  nextPendingDelivery,
  releaseDeliveries,
  settleDeliveries,
  subscriptionsByIds,
} from '../storage/webhook-delivery-queries.ts';

export interface SenderOptions {
  timeoutMs: number;
  concurrency: number;
  /** sends to one receiver (origin) at the same time; half of `concurrency` unless given */
  perOrigin?: number;
  leaseMs: number;
  /** the longest wait between looks at the table (due retries are looked for when they fall due) */
  pollMs: number;
  retry: RetryPolicy;
}

export const DEFAULT_SENDER_OPTIONS: SenderOptions = {
  timeoutMs: 5_000,
  concurrency: 8,
  leaseMs: 60_000,
  pollMs: 5_000,
  retry: DEFAULT_RETRY_POLICY,
};

export interface SenderDeps {
  db: Db;
  dialect: DialectName;
  clock: Clock;
  logger: Logger;
  /** guardedPost: targets go through the outbound-target rule */
  post: PostJson;
  /** called on stop: closes the kept-alive connections behind `post` */
  closePost?: () => void;
  random?: () => number;
  options?: Partial<SenderOptions>;
}

/** What one attempt needs, read with its batch. */
interface Attempt {
  delivery: WebhookDeliveryTable;
  body?: string;
  sub?: WebhookSubscriptionTable;
}

interface Outcome {
  d: WebhookDeliveryTable;
  result: PostResult;
  at: Date;
  state: 'DELIVERED' | 'PENDING' | 'DEAD';
  next?: Date;
}

export class WebhookSender extends ClaimLoop<WebhookDeliveryTable, Attempt, Outcome> {
  readonly workerId = `${os.hostname()}:${process.pid}:${newId().slice(0, 6)}`;
  private readonly options: SenderOptions;

  constructor(private readonly deps: SenderDeps) {
    const options = { ...DEFAULT_SENDER_OPTIONS, ...deps.options };
    const bounds = claimLoopBounds(options.concurrency);
    super({
      concurrency: options.concurrency,
      perOrigin: options.perOrigin ?? bounds.perOrigin,
      maxHeld: bounds.maxHeld,
      pollMs: options.pollMs,
      timeoutMs: options.timeoutMs,
      clock: deps.clock,
      logger: deps.logger,
      what: 'webhook delivery',
    });
    this.options = options;
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.deps.closePost?.();
  }

  protected override async msUntilNextDue(): Promise<number> {
    const next = await nextPendingDelivery(this.deps.db);
    return next ? Math.max(0, Date.parse(next.nextAttemptAt) - this.deps.clock.now().getTime()) : Infinity;
  }

  /** Claims due deliveries, and those whose holder's lease ran out, none for the subscriptions in `busy` (webhook-delivery-queries.ts). */
  async claim(limit: number, busy: readonly string[] = [], db: Db = this.deps.db): Promise<WebhookDeliveryTable[]> {
    const { dialect, clock } = this.deps;
    const now = clock.now();
    const claim = {
      workerId: this.workerId,
      nowIso: now.toISOString(),
      claimedUntil: new Date(now.getTime() + this.options.leaseMs).toISOString(),
    };
    return claimDeliveries(db, dialect, claim, limit, busy);
  }

  /** The events' bodies and the subscriptions, for the whole batch in two reads. */
  protected async prepare(rows: WebhookDeliveryTable[]): Promise<Claimed<Attempt>[]> {
    const { db } = this.deps;
    const [events, subs] = await Promise.all([
      eventBodies(db, [...new Set(rows.map((d) => d.eventId))]),
      subscriptionsByIds(db, [...new Set(rows.map((d) => d.subscriptionId))]),
    ]);
    const bodies = new Map(events.map((e) => [e.eventId, e.body]));
    const subsById = new Map(subs.map((s) => [s.id, s]));
    return rows.map((delivery) => {
      const sub = subsById.get(delivery.subscriptionId);
      return {
        id: delivery.id,
        item: { delivery, body: bodies.get(delivery.eventId), sub },
        origin: sub ? originOf(sub.url) : `subscription:${delivery.subscriptionId}`,
        key: delivery.subscriptionId,
        claimedUntil: Date.parse(delivery.claimedUntil!),
      };
    });
  }

  protected async deliver({ item: { delivery: d, body, sub } }: Claimed<Attempt>): Promise<Outcome> {
    const { clock, logger } = this.deps;
    let result: PostResult;
    // The retry window counts from when the delivery was queued (a replay starts a new one).
    const firstAt = new Date(d.createdAt);
    try {
      if (body === undefined) throw new Error(`event ${d.eventId} not found`);
      if (!sub) throw new Error(`subscription ${d.subscriptionId} not found`);
      if (sub.deletedAt) {
        result = { error: 'subscription deleted', latencyMs: 0 };
      } else {
        const now = clock.now();
        const secrets = [
          sub.secret,
          ...(sub.previousSecret && sub.previousSecretUntil && sub.previousSecretUntil > now.toISOString()
            ? [sub.previousSecret]
            : []),
        ];
        const headers = { [SIGNATURE_HEADER]: signatureHeader(secrets, now, body), 'Locker-Event-Id': d.eventId };
        result = await this.deps.post(sub.url, body, headers, this.options.timeoutMs);
      }
    } catch (err) {
      result = { error: (err as Error).message, latencyMs: 0 };
    }
    const at = clock.now();
    const attempt = d.attempts + 1;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const gone = result.error === 'subscription deleted';
    const next =
      ok || gone
        ? undefined
        : nextAttemptAt(this.options.retry, firstAt, attempt, at, (this.deps.random ?? Math.random)());
    const state = ok ? 'DELIVERED' : next ? 'PENDING' : 'DEAD';
    logger[ok ? 'info' : 'warn']('webhook delivery', {
      deliveryId: d.id,
      eventId: d.eventId,
      attempt,
      state,
      status: result.status,
      error: result.error,
      latencyMs: result.latencyMs,
    });
    return { d, result, at, state, next };
  }

  protected transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.deps.db.transaction().execute(work);
  }

  /**
   * Attempts recorded together, in one transaction (the caller's, when it claims in the same
   * commit; storage/webhook-delivery-queries.ts).
   */
  protected async settle(outcomes: Outcome[], db?: Db): Promise<void> {
    if (!db) return this.transaction((trx) => this.settle(outcomes, trx));
    await settleDeliveries(
      db,
      this.workerId,
      outcomes.map((o) => ({
        id: o.d.id,
        state: o.state,
        attempt: o.d.attempts + 1,
        httpStatus: o.result.status ?? null,
        error: o.result.error ?? null,
        latencyMs: o.result.latencyMs,
        at: o.at.toISOString(),
        next: o.next?.toISOString() ?? null,
      })),
    );
  }

  /** Hands deliveries back unsent (due again at once), if this process still holds them. */
  protected async release(ids: string[]): Promise<void> {
    await releaseDeliveries(this.deps.db, this.workerId, ids);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
