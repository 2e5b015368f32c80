/**
 * Sends outbox rows: claims a batch under a lease, sends each once with a timeout, records the
 * outcome in the row. Concurrency is bounded, and nothing here runs inside an API request or
 * a locker transaction, so a slow or dead receiver slows neither.
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
import type { OutboxEventTable, EventState } from '../storage/outbox-schema.ts';
import { postJson, type PostJson, type PostResult } from './http-post.ts';
import { webhookBody } from './webhook-body.ts';
import { dropOffSmsText, smsText, type SmsProvider } from './sms.ts';
import { ClaimLoop } from './claim-loop.ts';

export interface DispatcherOptions {
  webhooksEnabled: boolean;
  timeoutMs: number;
  concurrency: number;
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
  options?: Partial<DispatcherOptions>;
  /** each delivery's kind and outcome (metrics) */
  onDelivered?: (kind: OutboxEventTable['kind'], state: EventState) => void;
}

export class Dispatcher extends ClaimLoop<OutboxEventTable> {
  readonly workerId = `${os.hostname()}:${process.pid}:${newId().slice(0, 6)}`;
  private readonly options: DispatcherOptions;
  private readonly post: PostJson;

  constructor(private readonly deps: DispatcherDeps) {
    const options = { ...DEFAULT_DISPATCHER_OPTIONS, ...deps.options };
    super({ concurrency: options.concurrency, pollMs: options.pollMs, logger: deps.logger, what: 'outbox' });
    this.options = options;
    this.post = deps.post ?? postJson;
  }

  /**
   * Claims up to `limit` rows: pending ones, and claims whose holder's lease has run out. It
   * reads before it writes: an UPDATE would take SQLite's write lock (and wait for another
   * process holding it) on every poll, even with nothing to send.
   */
  async claim(limit: number): Promise<OutboxEventTable[]> {
    const { db, dialect, clock } = this.deps;
    const now = clock.now();
    const nowIso = now.toISOString();
    const due = await db
      .selectFrom('outbox_event')
      .select('id')
      .where('state', 'in', ['PENDING', 'SENDING'])
      .where((eb) => eb.or([eb('state', '=', 'PENDING'), eb('claimedUntil', '<', nowIso)]))
      .limit(1)
      .executeTakeFirst();
    if (!due) return [];
    let ids = db
      .selectFrom('outbox_event')
      .select('id')
      .where((eb) => eb.or([eb('state', '=', 'PENDING'), eb.and([eb('state', '=', 'SENDING'), eb('claimedUntil', '<', nowIso)])]))
      .orderBy('createdAt')
      .limit(limit);
    if (dialect === 'postgres') ids = ids.forUpdate().skipLocked();
    return db
      .updateTable('outbox_event')
      .set({ state: 'SENDING', claimedBy: this.workerId, claimedUntil: new Date(now.getTime() + this.options.leaseMs).toISOString() })
      .where('id', 'in', ids)
      .returningAll()
      .execute();
  }

  protected async deliver(row: OutboxEventTable): Promise<void> {
    let state: EventState;
    let result: PostResult;
    try {
      ({ state, result } = await this.send(row));
    } catch (err) {
      state = 'FAILED';
      result = { error: (err as Error).message, latencyMs: 0 };
    }
    await this.deps.db
      .updateTable('outbox_event')
      .set({
        state,
        httpStatus: result.status ?? null,
        error: result.error ?? null,
        latencyMs: result.latencyMs,
        sentAt: this.deps.clock.now().toISOString(),
        claimedUntil: null,
      })
      .where('id', '=', row.id)
      .where('claimedBy', '=', this.workerId)
      .execute()
      .catch((err) => this.deps.logger.error('outbox result not recorded', { eventId: row.id, err }));
    this.deps.onDelivered?.(row.kind, state);
    const level = state === 'FAILED' ? 'warn' : 'info';
    this.deps.logger[level]('outbound event', {
      eventId: row.id, kind: row.kind, event: row.event, orderId: row.orderId, state, status: result.status, error: result.error, latencyMs: result.latencyMs,
    });
  }

  private async send(row: OutboxEventTable): Promise<{ state: EventState; result: PostResult }> {
    const payload = JSON.parse(row.payload);
    const { timeoutMs } = this.options;
    switch (row.kind) {
      case 'COMPANY_NOTIFICATION': {
        // "order id and status at sending time"; the response is ignored, so any answer is delivered.
        const order = await this.deps.db.selectFrom('locker_order').select(['id', 'status']).where('id', '=', payload.orderId).executeTakeFirst();
        const result = await this.post(row.target, JSON.stringify({ orderId: payload.orderId, status: order?.status ?? row.event }), {}, timeoutMs);
        return { state: result.status !== undefined ? 'SENT' : 'FAILED', result };
      }
      case 'WEBHOOK': {
        if (!this.options.webhooksEnabled) return { state: 'SKIPPED', result: { error: 'webhooks switched off (WEBHOOKS_ENABLED=false)', latencyMs: 0 } };
        const body = webhookBody(payload.payloadTemplate ?? null, payload.postomatOrderId, payload.status);
        const result = await this.post(row.target, body, row.secretHeader ? { 'x-api-key': row.secretHeader } : {}, timeoutMs);
        return { state: isSuccess(result) ? 'SENT' : 'FAILED', result };
      }
      case 'SMS': {
        const message = await this.smsFor(payload.orderId, row.event);
        if (!message) return { state: 'FAILED', result: { error: 'order or pickup code not found', latencyMs: 0 } };
        // The last guard of the courier's code: a return's sender gets only the drop-off code.
        if (message.isReturn && row.event !== 'DROP_OFF_CODE') return { state: 'SKIPPED', result: { error: "a return's sender never gets the pickup code", latencyMs: 0 } };
        const result = await this.deps.sms.send(row.target, message.text, [message.code]);
        return { state: isSuccess(result) ? 'SENT' : 'FAILED', result };
      }
    }
  }

  /** A return's sender gets its DOWN code (drop-off, DROP_OFF_CODE); everyone else the UP code (pickup). */
  private async smsFor(orderId: string, event: string) {
    const codeType = event === 'DROP_OFF_CODE' ? 'DOWN' : 'UP';
    const row = await this.deps.db
      .selectFrom('locker_order as o')
      .innerJoin('postomat as p', 'p.id', 'o.postomatId')
      .leftJoin('cell as c', 'c.id', 'o.cellId')
      .innerJoin('order_code as k', (j) => j.onRef('k.orderId', '=', 'o.id').on('k.type', '=', codeType))
      .select(['p.title', 'p.shortId', 'c.number', 'k.password', 'o.endDateTime', 'o.kind'])
      .where('o.id', '=', orderId)
      .executeTakeFirst();
    if (!row) return undefined;
    const mapUrl = `${this.options.publicBaseUrl.replace(/\/$/, '')}/api/v1/public/postomat/map/${encodeURIComponent(row.shortId)}`;
    const isReturn = row.kind === 'RETURN';
    if (codeType === 'DOWN') return { code: row.password, isReturn, text: dropOffSmsText({ lockerTitle: row.title, code: row.password, mapUrl }) };
    return { code: row.password, isReturn, text: smsText({ lockerTitle: row.title, cellNumber: row.number, code: row.password, until: row.endDateTime, mapUrl, redirected: event === 'REDIRECTED' }) };
  }
}

const isSuccess = (r: PostResult) => r.status !== undefined && r.status >= 200 && r.status < 300;
