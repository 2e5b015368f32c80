/**
 * The outbox of outbound events (`outbox_event`, outbox-schema.ts): rows queued in the
 * transaction of the change that causes them, claimed under a lease and settled by the
 * dispatcher (events/dispatcher.ts), read back as the operator's delivery log. Pruning them is
 * retention-queries.ts's.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Database } from './schema.ts';
import { type Db, type DialectName, dialectOf } from './database.ts';
import { newId } from './ids.ts';
import { jsonIds, prepared, preparedWrite } from './prepared.ts';
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

/** States of the rows still to send; the other states are final (retention-queries.ts). */
export const WAITING_OUTBOX_STATES = ['PENDING', 'SENDING'] as const satisfies readonly EventState[];
/**
 * The rows still to send, as the partial index `outbox_event_due` (migration 028) names them:
 * with literals, as neither database uses a partial index for a condition on bound parameters.
 */
export const WAITING = (eb: ExpressionBuilder<Database, 'outbox_event'>) =>
  eb(
    'state',
    'in',
    WAITING_OUTBOX_STATES.map((s) => sql.lit(s)),
  );

/** Who claims, and until when: `nowIso` tells a lease that ran out from one that holds. */
export interface OutboxClaim {
  workerId: string;
  nowIso: string;
  claimedUntil: string;
}

/** Waiting rows a claim may take: pending ones, and claims whose holder's lease ran out. */
const claimable = (nowIso: unknown) => (eb: any) =>
  eb.or([eb('state', '=', 'PENDING'), eb.and([eb('state', '=', 'SENDING'), eb('claimedUntil', '<', nowIso)])]);

/** The ids a claim may take, none for the targets in `busy`. */
const claimableIds = (db: Db, nowIso: unknown, busy: readonly string[]) =>
  db
    .selectFrom('outbox_event')
    .select('id')
    .where(WAITING)
    .where(claimable(nowIso))
    .$if(busy.length > 0, (q) => q.where('target', 'not in', busy));

/** The claim's UPDATE, oldest first, with `busy` targets left out when there are any. */
export function claimQuery(
  db: Db,
  dialect: DialectName,
  claim: { workerId: unknown; claimedUntil: unknown; nowIso: unknown },
  limit: unknown,
  busy: readonly string[],
) {
  let ids = claimableIds(db, claim.nowIso, busy)
    .orderBy('createdAt')
    .limit(limit as number);
  if (dialect === 'postgres') ids = ids.forUpdate().skipLocked();
  return db
    .updateTable('outbox_event')
    .set({ state: 'SENDING', claimedBy: claim.workerId as string, claimedUntil: claim.claimedUntil as string })
    .where('id', 'in', ids)
    .returningAll();
}

/** Whether anything is claimable, with nothing left out: asked before most claims, so prepared once. */
const anyClaimable = prepared<[nowIso: string], { id: string }>(1, (db: Db, nowIso) =>
  claimableIds(db, nowIso, []).limit(1),
);

/** The usual claim, with nothing left out, compiled once per database (prepared.ts). */
const usualClaim = preparedWrite<[string, string, string, number], OutboxEventTable>(4, (db, w, u, n, l) =>
  claimQuery(db, dialectOf(db), { workerId: w, claimedUntil: u, nowIso: n }, l, []),
);

/**
 * Claims up to `limit` rows with one UPDATE, oldest first: pending ones, and claims whose
 * holder's lease has run out, but none for the targets in `busy`. The waiting rows are read in
 * creation order from their own index, so a claim costs its batch, not the backlog. It reads
 * before it writes: outside a transaction an UPDATE would take SQLite's write lock (and wait for
 * another process holding it) on every poll, even with nothing to send; inside one (after a
 * settle, which holds the lock already) SQLite's read costs a fifth of the empty UPDATE, while
 * on PostgreSQL either is one round trip, so there the UPDATE goes alone. On PostgreSQL the
 * rows are picked FOR UPDATE SKIP LOCKED, so each is claimed by one process.
 */
export async function claimOutboxEvents(
  db: Db,
  dialect: DialectName,
  claim: OutboxClaim,
  limit: number,
  busy: readonly string[],
): Promise<OutboxEventTable[]> {
  const { nowIso } = claim;
  if (!db.isTransaction || dialect === 'sqlite') {
    const any = busy.length
      ? await claimableIds(db, nowIso, busy).limit(1).executeTakeFirst()
      : (await anyClaimable(db, nowIso))[0];
    if (!any) return [];
  }
  const { rows } = busy.length
    ? await db.executeQuery(claimQuery(db, dialect, claim, limit, busy).compile())
    : await usualClaim(db, claim.workerId, claim.claimedUntil, nowIso, limit);
  // RETURNING gives no order: sends go oldest first.
  return (rows as OutboxEventTable[]).sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
  );
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
 * The outcomes as one JSON parameter, each row's values read from it by the database: the
 * statement's text never changes with the batch, so it is built and prepared once per database.
 * (A VALUES list of six parameters a row was a new text for each batch size: Kysely built it
 * and SQLite prepared it for every settle, ~5 µs an event in bench:events. A prepared one-row
 * UPDATE per outcome cost SQLite as much in the database and twice as much in all: each
 * statement pays Kysely's driver and the promises around it.) Here, the outcomes as the UPDATE's `v`.
 */
const outcomeRows = (db: Db, json: unknown) =>
  dialectOf(db) === 'postgres'
    ? sql`json_to_recordset(cast(${json} as json))
      as v(id text, state text, "httpStatus" integer, error text, "latencyMs" integer, "sentAt" text)`
    : sql`(select value ->> '$.id' as id, value ->> '$.state' as state, value ->> '$.httpStatus' as "httpStatus",
      value ->> '$.error' as error, value ->> '$.latencyMs' as "latencyMs", value ->> '$.sentAt' as "sentAt"
      from json_each(${json})) as v`;

const settle = preparedWrite<[json: string, workerId: string]>(2, (db: Db, json, workerId) =>
  db
    .updateTable('outbox_event')
    .from(outcomeRows(db, json) as any)
    .set({
      state: sql`v.state`,
      httpStatus: sql`v."httpStatus"`,
      error: sql`v.error`,
      latencyMs: sql`v."latencyMs"`,
      sentAt: sql`v."sentAt"`,
      claimedUntil: null,
    } as any)
    .where(sql<boolean>`"outbox_event"."id" = v.id`)
    .where('outbox_event.claimedBy' as any, '=', workerId),
);

/**
 * One UPDATE for many outcomes, each row's values joined from the batch (one JSON parameter);
 * rows another process claimed meanwhile are left to it.
 */
export async function settleOutboxEvents(db: Db, workerId: string, outcomes: OutboxOutcome[]): Promise<void> {
  if (!outcomes.length) return;
  await settle(db, JSON.stringify(outcomes), workerId);
}

const release = preparedWrite<[idsJson: string, workerId: string]>(2, (db: Db, json, workerId) =>
  db
    .updateTable('outbox_event')
    .set({ state: 'PENDING', claimedBy: null, claimedUntil: null })
    .where('id', 'in', jsonIds(db, json))
    .where('claimedBy', '=', workerId)
    .where('state', '=', 'SENDING'),
);

/** Hands rows back unsent (PENDING again), if `workerId` still holds them (the ids as one JSON parameter). */
export async function releaseOutboxEvents(db: Db, workerId: string, ids: string[]): Promise<void> {
  await release(db, JSON.stringify(ids), workerId);
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
