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
import { sql } from 'kysely';
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

/** What one send needs: the row, and the order's status read with its batch (notifications). */
interface Outgoing {
  row: OutboxEventTable;
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

  /**
   * Claims up to `limit` rows with one UPDATE: pending ones, and claims whose holder's lease
   * has run out, but none for the targets in `busy`. It reads before it writes: an UPDATE would
   * take SQLite's write lock (and wait for another process holding it) on every poll, even with
   * nothing to send.
   */
  async claim(limit: number, busy: readonly string[] = [], db: Db = this.deps.db): Promise<OutboxEventTable[]> {
    const { dialect, clock } = this.deps;
    const now = clock.now();
    const nowIso = now.toISOString();
    const due = (eb: any) => {
      const claimable = eb.or([
        eb('state', '=', 'PENDING'),
        eb.and([eb('state', '=', 'SENDING'), eb('claimedUntil', '<', nowIso)]),
      ]);
      return busy.length ? eb.and([claimable, eb('target', 'not in', busy)]) : claimable;
    };
    const any = await db
      .selectFrom('outbox_event')
      .select('id')
      .where('state', 'in', ['PENDING', 'SENDING'])
      .where(due)
      .limit(1)
      .executeTakeFirst();
    if (!any) return [];
    let ids = db
      .selectFrom('outbox_event')
      .select('id')
      .where('state', 'in', ['PENDING', 'SENDING'])
      .where(due)
      .orderBy('createdAt')
      .limit(limit);
    if (dialect === 'postgres') ids = ids.forUpdate().skipLocked();
    const rows = await db
      .updateTable('outbox_event')
      .set({
        state: 'SENDING',
        claimedBy: this.workerId,
        claimedUntil: new Date(now.getTime() + this.options.leaseMs).toISOString(),
      })
      .where('id', 'in', ids)
      .returningAll()
      .execute();
    // RETURNING gives no order: sends go oldest first.
    return rows.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  /** The notifications' order statuses, for the whole batch in one read. */
  protected async prepare(rows: OutboxEventTable[]): Promise<Claimed<Outgoing>[]> {
    const orderIds = [
      ...new Set(
        rows.filter((r) => r.kind === 'COMPANY_NOTIFICATION').map((r) => JSON.parse(r.payload).orderId as string),
      ),
    ];
    const statuses = new Map<string, string>();
    if (orderIds.length) {
      for (const o of await statusesOfOrders(this.deps.db, orderIds)) statuses.set(o.id, o.status);
    }
    return rows.map((row) => ({
      id: row.id,
      item: {
        row,
        status: row.kind === 'COMPANY_NOTIFICATION' ? statuses.get(JSON.parse(row.payload).orderId) : undefined,
      },
      origin: originOf(row),
      key: row.target,
      claimedUntil: Date.parse(row.claimedUntil!),
    }));
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

  /**
   * One UPDATE for many outcomes, each row's values joined from a VALUES list (a CASE per column
   * would grow with the square of the batch); rows another process claimed meanwhile are left
   * to it. The casts give PostgreSQL the integer columns' types.
   */
  protected async settle(outcomes: Outcome[], db: Db = this.deps.db): Promise<void> {
    const values = sql.join(
      outcomes.map(
        (o) =>
          sql`(${o.row.id}, ${o.state}, cast(${o.result.status ?? null} as integer), cast(${o.result.error ?? null} as text), cast(${o.result.latencyMs} as integer), ${o.sentAt})`,
      ),
    );
    await db
      .updateTable('outbox_event')
      .from(sql`(values ${values})`.as('v') as any)
      .set({
        state: sql`v.column2`,
        httpStatus: sql`v.column3`,
        error: sql`v.column4`,
        latencyMs: sql`v.column5`,
        sentAt: sql`v.column6`,
        claimedUntil: null,
      } as any)
      .where(sql<boolean>`"outbox_event"."id" = v.column1`)
      .where('outbox_event.claimedBy' as any, '=', this.workerId)
      .execute();
  }

  /** Hands rows back unsent (PENDING again), if this process still holds them. */
  protected async release(ids: string[]): Promise<void> {
    await this.deps.db
      .updateTable('outbox_event')
      .set({ state: 'PENDING', claimedBy: null, claimedUntil: null })
      .where('id', 'in', ids)
      .where('claimedBy', '=', this.workerId)
      .where('state', '=', 'SENDING')
      .execute();
  }

  private async send({ row, status }: Outgoing): Promise<{ state: EventState; result: PostResult }> {
    const payload = JSON.parse(row.payload);
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
