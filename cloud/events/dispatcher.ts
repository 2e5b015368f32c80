/**
 * Sends outbox rows: claims a batch under a lease (one UPDATE), sends each once with a timeout
 * over kept-alive connections, records the outcomes of many rows with one UPDATE. Concurrency is
 * bounded, in all and per receiver (claim-loop.ts), and nothing here runs inside an API request
 * or a locker transaction, so a slow or dead receiver slows neither.
 *
 * Several cloud processes may share one PostgreSQL database: a claim takes rows with
 * FOR UPDATE SKIP LOCKED, so each row is sent by exactly one of them. A process that dies
 * after claiming leaves its rows to be claimed again once the lease ends.
 */
import os from 'node:os';
import type { Db, DialectName } from '../storage/database.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import { newId } from '../storage/ids.ts';
import { smsFactsOf, statusesOfOrders } from '../storage/order-lookups.ts';
import { claimOutboxEvents, releaseOutboxEvents, settleOutboxEvents } from '../storage/outbox-queries.ts';
import type { OutboxEventTable, EventState } from '../storage/outbox-schema.ts';
import { postJson, type PostJson, type PostResult } from './http-post.ts';
import { webhookBody } from './webhook-body.ts';
import { dropOffSmsText, smsText, type SmsProvider } from './sms.ts';
import { ClaimLoop, claimLoopBounds, type Claimed } from './claim-loop.ts';

export interface DispatcherOptions {
  webhooksEnabled: boolean;
  timeoutMs: number;
  concurrency: number;
  /** sends to one receiver (origin) at the same time; half of `concurrency` unless given */
  perOrigin?: number;
  /** how long a claim holds; longer than timeoutMs, so a live sender always finishes first */
  leaseMs: number;
  pollMs: number;
  /** base of public links in SMS, e.g. https://lockers.example.com */
  publicBaseUrl: string;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  webhooksEnabled: true,
  timeoutMs: 5_000,
  concurrency: 16,
  leaseMs: 60_000,
  // A safety net: rows written by this process or another wake the dispatcher after their commit.
  pollMs: 5_000,
  publicBaseUrl: 'http://localhost:3000',
};

export interface DispatcherDeps {
  db: Db;
  dialect: DialectName;
  clock: Clock;
  logger: Logger;
  sms: SmsProvider;
  post?: PostJson;
  /** called on stop: closes the kept-alive connections behind `post` */
  closePost?: () => void;
  options?: Partial<DispatcherOptions>;
  /** each delivery's kind and outcome (metrics) */
  onDelivered?: (kind: OutboxEventTable['kind'], state: EventState) => void;
}

/** What one send needs: the row, its payload parsed, and the order's status read with its batch (notifications). */
interface Outgoing {
  row: OutboxEventTable;
  payload: any;
  status?: string;
}

interface Outcome {
  row: OutboxEventTable;
  state: EventState;
  result: PostResult;
  sentAt: string;
}

export class Dispatcher extends ClaimLoop<OutboxEventTable, Outgoing, Outcome> {
  readonly workerId = `${os.hostname()}:${process.pid}:${newId().slice(0, 6)}`;
  private readonly options: DispatcherOptions;
  private readonly post: PostJson;

  constructor(private readonly deps: DispatcherDeps) {
    const options = { ...DEFAULT_DISPATCHER_OPTIONS, ...deps.options };
    const bounds = claimLoopBounds(options.concurrency);
    super({
      concurrency: options.concurrency,
      perOrigin: options.perOrigin ?? bounds.perOrigin,
      maxHeld: bounds.maxHeld,
      pollMs: options.pollMs,
      timeoutMs: options.timeoutMs,
      clock: deps.clock,
      logger: deps.logger,
      what: 'outbox',
    });
    this.options = options;
    this.post = deps.post ?? postJson;
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.deps.closePost?.();
  }

  /** Claims up to `limit` rows under a lease (storage/outbox-queries.ts), none for the targets in `busy`. */
  async claim(limit: number, busy: readonly string[] = [], db: Db = this.deps.db): Promise<OutboxEventTable[]> {
    const { dialect, clock } = this.deps;
    const now = clock.now();
    const claim = {
      workerId: this.workerId,
      nowIso: now.toISOString(),
      claimedUntil: new Date(now.getTime() + this.options.leaseMs).toISOString(),
    };
    return claimOutboxEvents(db, dialect, claim, limit, busy);
  }

  /** The notifications' order statuses, for the whole batch in one read. */
  protected async prepare(rows: OutboxEventTable[]): Promise<Claimed<Outgoing>[]> {
    const payloads = rows.map((r) => JSON.parse(r.payload));
    const orderIds = new Set<string>();
    rows.forEach((r, i) => r.kind === 'COMPANY_NOTIFICATION' && orderIds.add(payloads[i].orderId));
    const statuses = new Map<string, string>();
    if (orderIds.size) {
      for (const o of await statusesOfOrders(this.deps.db, [...orderIds])) statuses.set(o.id, o.status);
    }
    // A batch's rows mostly go to a few receivers: each target's origin is worked out once.
    const origins = new Map<string, string>();
    return rows.map((row, i) => {
      const key = row.kind === 'SMS' ? 'sms:' : row.target;
      let origin = origins.get(key);
      if (origin === undefined) origins.set(key, (origin = originOf(row)));
      return {
        id: row.id,
        item: {
          row,
          payload: payloads[i],
          status: row.kind === 'COMPANY_NOTIFICATION' ? statuses.get(payloads[i].orderId) : undefined,
        },
        origin,
        key: row.target,
        claimedUntil: Date.parse(row.claimedUntil!),
      };
    });
  }

  protected async deliver({ item }: Claimed<Outgoing>): Promise<Outcome> {
    const { row } = item;
    let state: EventState;
    let result: PostResult;
    try {
      ({ state, result } = await this.send(item));
    } catch (err) {
      state = 'FAILED';
      result = { error: (err as Error).message, latencyMs: 0 };
    }
    this.deps.onDelivered?.(row.kind, state);
    const level = state === 'FAILED' ? 'warn' : 'info';
    this.deps.logger[level]('outbound event', {
      eventId: row.id,
      kind: row.kind,
      event: row.event,
      orderId: row.orderId,
      state,
      status: result.status,
      error: result.error,
      latencyMs: result.latencyMs,
    });
    return { row, state, result, sentAt: this.deps.clock.now().toISOString() };
  }

  protected transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.deps.db.transaction().execute(work);
  }

  /** The outcomes recorded with one UPDATE; rows another process claimed meanwhile are left to it. */
  protected async settle(outcomes: Outcome[], db: Db = this.deps.db): Promise<void> {
    await settleOutboxEvents(
      db,
      this.workerId,
      outcomes.map((o) => ({
        id: o.row.id,
        state: o.state,
        httpStatus: o.result.status ?? null,
        error: o.result.error ?? null,
        latencyMs: o.result.latencyMs,
        sentAt: o.sentAt,
      })),
    );
  }

  /** Hands rows back unsent (PENDING again), if this process still holds them. */
  protected async release(ids: string[]): Promise<void> {
    await releaseOutboxEvents(this.deps.db, this.workerId, ids);
  }

  private async send({ row, payload, status }: Outgoing): Promise<{ state: EventState; result: PostResult }> {
    const { timeoutMs } = this.options;
    switch (row.kind) {
      case 'COMPANY_NOTIFICATION': {
        // "order id and status at sending time" (read with the batch, just before its sends);
        // the response is ignored, so any answer is delivered.
        const result = await this.post(
          row.target,
          JSON.stringify({ orderId: payload.orderId, status: status ?? row.event }),
          {},
          timeoutMs,
        );
        return { state: result.status !== undefined ? 'SENT' : 'FAILED', result };
      }
      case 'WEBHOOK': {
        if (!this.options.webhooksEnabled)
          return {
            state: 'SKIPPED',
            result: { error: 'webhooks switched off (WEBHOOKS_ENABLED=false)', latencyMs: 0 },
          };
        const body = webhookBody(payload.payloadTemplate ?? null, payload.postomatOrderId, payload.status);
        const result = await this.post(
          row.target,
          body,
          row.secretHeader ? { 'x-api-key': row.secretHeader } : {},
          timeoutMs,
        );
        return { state: isSuccess(result) ? 'SENT' : 'FAILED', result };
      }
      case 'SMS': {
        const message = await this.smsFor(payload.orderId, row.event);
        if (!message) return { state: 'FAILED', result: { error: 'order or pickup code not found', latencyMs: 0 } };
        // The last guard of the courier's code: a return's sender gets only the drop-off code.
        if (message.isReturn && row.event !== 'DROP_OFF_CODE')
          return { state: 'SKIPPED', result: { error: "a return's sender never gets the pickup code", latencyMs: 0 } };
        const result = await this.deps.sms.send(row.target, message.text, [message.code]);
        return { state: isSuccess(result) ? 'SENT' : 'FAILED', result };
      }
    }
  }

  /** A return's sender gets its DOWN code (drop-off, DROP_OFF_CODE); everyone else the UP code (pickup). */
  private async smsFor(orderId: string, event: string) {
    const codeType = event === 'DROP_OFF_CODE' ? 'DOWN' : 'UP';
    const row = await smsFactsOf(this.deps.db, orderId, codeType);
    if (!row) return undefined;
    const mapUrl = `${this.options.publicBaseUrl.replace(/\/$/, '')}/api/v1/public/postomat/map/${encodeURIComponent(row.shortId)}`;
    const isReturn = row.kind === 'RETURN';
    if (codeType === 'DOWN')
      return {
        code: row.password,
        isReturn,
        text: dropOffSmsText({ lockerTitle: row.title, code: row.password, mapUrl }),
      };
    return {
      code: row.password,
      isReturn,
      text: smsText({
        lockerTitle: row.title,
        cellNumber: row.number,
        code: row.password,
        until: row.endDateTime,
        mapUrl,
        redirected: event === 'REDIRECTED',
      }),
    };
  }
}

/** SMS go to the one gateway; HTTP targets are bounded per origin (scheme, host, port). */
function originOf(row: OutboxEventTable): string {
  if (row.kind === 'SMS') return 'sms:';
  try {
    return new URL(row.target).origin;
  } catch {
    return row.target;
  }
}

const isSuccess = (r: PostResult) => r.status !== undefined && r.status >= 200 && r.status < 300;
