/**
 * The outbox of outbound events (`outbox_event`, outbox-schema.ts): rows queued in the
 * transaction of the change that causes them, claimed under a lease and settled by the
 * dispatcher (events/dispatcher.ts), read back as the operator's delivery log. Pruning them is
 * retention-queries.ts's.
 */
import { sql } from 'kysely';
import type { Db, DialectName } from './database.ts';
import { newId } from './ids.ts';
import type { EventKind, EventState, OutboxEventTable } from './outbox-schema.ts';

/** What an event says; the row around it (id, PENDING, no claim, no outcome) is the outbox's. */
export type NewOutboxEvent = Pick<
  OutboxEventTable,
  'kind' | 'event' | 'orderId' | 'target' | 'payload' | 'secretHeader'
>;

export async function queueOutboxEvents(trx: Db, events: NewOutboxEvent[], createdAt: string): Promise<void> {
  await trx
    .insertInto('outbox_event')
    .values(
      events.map((e) => ({
        id: newId(),
        kind: e.kind,
        event: e.event,
        orderId: e.orderId,
        target: e.target,
        payload: e.payload,
        secretHeader: e.secretHeader,
        state: 'PENDING' as const,
        claimedBy: null,
        claimedUntil: null,
        httpStatus: null,
        error: null,
        latencyMs: null,
        createdAt,
        sentAt: null,
      })),
    )
    .execute();
}

/** Who claims, and until when: `nowIso` tells a lease that ran out from one that holds. */
export interface OutboxClaim {
  workerId: string;
  nowIso: string;
  claimedUntil: string;
}

/**
 * Claims up to `limit` rows with one UPDATE, oldest first: pending ones, and claims whose
 * holder's lease has run out, but none for the targets in `busy`. It reads before it writes: an
 * UPDATE would take SQLite's write lock (and wait for another process holding it) on every poll,
 * even with nothing to send. On PostgreSQL the rows are picked FOR UPDATE SKIP LOCKED, so each
 * is claimed by one process.
 */
export async function claimOutboxEvents(
  db: Db,
  dialect: DialectName,
  claim: OutboxClaim,
  limit: number,
  busy: readonly string[],
): Promise<OutboxEventTable[]> {
  const { nowIso } = claim;
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
      claimedBy: claim.workerId,
      claimedUntil: claim.claimedUntil,
    })
    .where('id', 'in', ids)
    .returningAll()
    .execute();
  // RETURNING gives no order: sends go oldest first.
  return rows.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

/** What came of one send. */
export interface OutboxOutcome {
  id: string;
  state: EventState;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  sentAt: string;
}

/**
 * One UPDATE for many outcomes, each row's values joined from a VALUES list (a CASE per column
 * would grow with the square of the batch); rows another process claimed meanwhile are left
 * to it. The casts give PostgreSQL the integer columns' types.
 */
export async function settleOutboxEvents(db: Db, workerId: string, outcomes: OutboxOutcome[]): Promise<void> {
  const values = sql.join(
    outcomes.map(
      (o) =>
        sql`(${o.id}, ${o.state}, cast(${o.httpStatus} as integer), cast(${o.error} as text), cast(${o.latencyMs} as integer), ${o.sentAt})`,
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
    .where('outbox_event.claimedBy' as any, '=', workerId)
    .execute();
}

/** Hands rows back unsent (PENDING again), if `workerId` still holds them. */
export async function releaseOutboxEvents(db: Db, workerId: string, ids: string[]): Promise<void> {
  await db
    .updateTable('outbox_event')
    .set({ state: 'PENDING', claimedBy: null, claimedUntil: null })
    .where('id', 'in', ids)
    .where('claimedBy', '=', workerId)
    .where('state', '=', 'SENDING')
    .execute();
}

export interface OutboxLogFilter {
  orderId?: string;
  kind?: EventKind;
  state?: EventState;
  limit: number;
}

/** The delivery log's rows, newest first: no payloads, no API keys. */
export async function outboxLog(db: Db, f: OutboxLogFilter) {
  let q = db
    .selectFrom('outbox_event')
    .select([
      'id',
      'kind',
      'event',
      'orderId',
      'target',
      'state',
      'httpStatus',
      'error',
      'latencyMs',
      'createdAt',
      'sentAt',
    ])
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(f.limit);
  if (f.orderId) q = q.where('orderId', '=', f.orderId);
  if (f.kind) q = q.where('kind', '=', f.kind);
  if (f.state) q = q.where('state', '=', f.state);
  return q.execute();
}
