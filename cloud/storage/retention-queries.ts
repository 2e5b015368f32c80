/**
 * The retention pruner's statements (docs/retention.md). Each deletes at most `limit` rows by
 * key, so it is short on SQLite's one write connection and idempotent when several cloud
 * processes prune one PostgreSQL at once: there the rows are picked with FOR UPDATE SKIP
 * LOCKED, so two pruners take different rows and neither waits on the other. Each finds its
 * rows through an index whose range holds only what may go (migration 012). The extensions' two
 * (Locker API Idempotency-Keys, webhook events) pick their rows with a plain read, and check
 * again in the delete what makes a row go.
 */
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { heldByLocker } from '../domain/locker-sync.ts';
import type { EventState } from './outbox-schema.ts';
import type { CommandState } from './locker-link-schema.ts';
import type { Db, DialectName } from './database.ts';
import type { Database } from './schema.ts';

/** States an outbox row never leaves (outbox-schema.ts). */
export const FINISHED_OUTBOX_STATES = ['SENT', 'FAILED', 'SKIPPED'] as const satisfies readonly EventState[];
/** The same states as literals, as the partial index `outbox_event_sent` (migration 028) names them. */
export const FINISHED_OUTBOX = (eb: ExpressionBuilder<Database, 'outbox_event'>) =>
  eb(
    'state',
    'in',
    FINISHED_OUTBOX_STATES.map((s) => sql.lit(s)),
  );
/** States a staff command never leaves (sync/commands.ts); PENDING and SENT are open. */
export const FINISHED_COMMAND_STATES = ['DONE', 'FAILED', 'EXPIRED'] as const satisfies readonly CommandState[];

/** On PostgreSQL a pick skips rows another pruner (or anyone) holds, rather than waiting for them. */
function pick<O>(q: SelectQueryBuilder<Database, any, O>, dialect: DialectName): SelectQueryBuilder<Database, any, O> {
  return dialect === 'postgres' ? q.forUpdate().skipLocked() : q;
}

const deleted = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);

/** Outbox rows sent (or failed, or skipped) before `before`. */
export async function pruneOutbox(db: Db, dialect: DialectName, before: string, limit: number): Promise<number> {
  const ids = pick(
    db.selectFrom('outbox_event').select('id').where(FINISHED_OUTBOX).where('sentAt', '<', before).limit(limit),
    dialect,
  );
  return deleted(await db.deleteFrom('outbox_event').where('id', 'in', ids).executeTakeFirstOrThrow());
}

/** Locker events received before `before` (every stored outcome is final: APPLIED, STORED, REJECTED). */
export async function pruneLockerEvents(db: Db, dialect: DialectName, before: string, limit: number): Promise<number> {
  const keys = pick(
    db.selectFrom('locker_event').select(['postomatId', 'eventId']).where('receivedAt', '<', before).limit(limit),
    dialect,
  );
  return deleted(
    await db
      .deleteFrom('locker_event')
      .where((eb) => eb(eb.refTuple('postomatId', 'eventId'), 'in', keys.$asTuple('postomatId', 'eventId')))
      .executeTakeFirstOrThrow(),
  );
}

/**
 * Attempt counters of locker events last tried before `before` (the event was since applied,
 * rejected or set aside, or its agent gave up), and alarms resolved before `before`. Both
 * tables hold only what went wrong, so they stay small: no index beyond their keys.
 */
export async function pruneEventAttempts(db: Db, dialect: DialectName, before: string, limit: number): Promise<number> {
  const keys = pick(
    db.selectFrom('locker_event_attempt').select(['postomatId', 'eventId']).where('lastAt', '<', before).limit(limit),
    dialect,
  );
  return deleted(
    await db
      .deleteFrom('locker_event_attempt')
      .where((eb) => eb(eb.refTuple('postomatId', 'eventId'), 'in', keys.$asTuple('postomatId', 'eventId')))
      .executeTakeFirstOrThrow(),
  );
}

export async function pruneResolvedAlarms(
  db: Db,
  dialect: DialectName,
  before: string,
  limit: number,
): Promise<number> {
  const ids = pick(
    db
      .selectFrom('locker_alarm')
      .select('id')
      .where('resolvedAt', 'is not', null)
      .where('resolvedAt', '<', before)
      .limit(limit),
    dialect,
  );
  return deleted(await db.deleteFrom('locker_alarm').where('id', 'in', ids).executeTakeFirstOrThrow());
}

/** Staff commands answered, failed or expired, created before `before`; open ones stay whatever their age. */
export async function pruneCommands(db: Db, dialect: DialectName, before: string, limit: number): Promise<number> {
  const ids = pick(
    db
      .selectFrom('locker_command')
      .select('id')
      .where('state', 'in', FINISHED_COMMAND_STATES)
      .where('createdAt', '<', before)
      .limit(limit),
    dialect,
  );
  return deleted(await db.deleteFrom('locker_command').where('id', 'in', ids).executeTakeFirstOrThrow());
}

/** Marketplace Idempotency-Keys claimed before `before`: past their window a key starts afresh anyway. */
export async function pruneIdempotencyKeys(
  db: Db,
  dialect: DialectName,
  before: string,
  limit: number,
): Promise<number> {
  const keys = pick(
    db.selectFrom('market_idempotency').select(['companyId', 'key']).where('createdAt', '<', before).limit(limit),
    dialect,
  );
  // The age is checked again by the delete itself: a key taken over meanwhile (a fresh
  // createdAt) is no longer past its window.
  return deleted(
    await db
      .deleteFrom('market_idempotency')
      .where((eb) => eb(eb.refTuple('companyId', 'key'), 'in', keys.$asTuple('companyId', 'key')))
      .where('createdAt', '<', before)
      .executeTakeFirstOrThrow(),
  );
}

/**
 * Dates the lockers' published versions: a checkpoint (locker, publishedVersion, now) for each
 * locker published past its floor and past its latest checkpoint, unless it has one newer than
 * `recentAfter` (one per stretch is enough). Returns how many were written.
 */
export async function recordSyncCheckpoints(db: Db, now: string, recentAfter: string, limit: number): Promise<number> {
  const due = db
    .selectFrom('locker_sync as s')
    .select((eb) => ['s.postomatId', 's.publishedVersion', eb.cast<string>(eb.val(now), 'text').as('at')])
    .whereRef('s.publishedVersion', '>', 's.floor')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('locker_sync_checkpoint as k')
            .select('k.postomatId')
            .whereRef('k.postomatId', '=', 's.postomatId')
            .where((eb) => eb.or([eb('k.version', '>=', eb.ref('s.publishedVersion')), eb('k.at', '>', recentAfter)])),
        ),
      ),
    )
    .limit(limit);
  const res = await db
    .insertInto('locker_sync_checkpoint')
    .columns(['postomatId', 'version', 'at'])
    .expression(due)
    .onConflict((oc) => oc.columns(['postomatId', 'version']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Lockers with a version published at or before `ripeAt` above their floor, after `afterId`
 * in id order: `cutoff` is the highest such version, the one their record may be pruned up to.
 */
export async function lockersDueForSyncPruning(
  db: Db,
  ripeAt: string,
  afterId: string,
  limit: number,
): Promise<Array<{ postomatId: string; cutoff: number }>> {
  const rows = await db
    .selectFrom('locker_sync_checkpoint as k')
    .innerJoin('locker_sync as s', 's.postomatId', 'k.postomatId')
    .select((eb) => ['k.postomatId', eb.fn.max('k.version').as('cutoff')])
    .where('k.at', '<=', ripeAt)
    .whereRef('k.version', '>', 's.floor')
    .where('k.postomatId', '>', afterId)
    .groupBy('k.postomatId')
    .orderBy('k.postomatId')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ postomatId: r.postomatId, cutoff: Number(r.cutoff) }));
}

export interface SyncPruneStep {
  /** change rows deleted */
  deleted: number;
  /** whether the floor moved */
  raised: boolean;
  /** the record is pruned up to `cutoff` */
  done: boolean;
}

/**
 * One batch of a locker's change rows above its floor and at or below `cutoff`, in version
 * order: those of orders the locker no longer holds (finished, withdrawn, moved away, gone)
 * are deleted, those it holds stay, and the floor rises past the whole batch in the same
 * transaction. An agent holding a version below the floor then gets a full snapshot, so no
 * removal is ever lost with its row.
 *
 * Why the rows kept below the floor are safe: an agent at or above the floor already has
 * them, and an order that stops being held gets a new change, above the floor. Why a change
 * recorded meanwhile is safe: its version is above every published one, so above `cutoff`.
 */
export async function pruneSyncChanges(
  db: Db,
  postomatId: string,
  cutoff: number,
  limit: number,
): Promise<SyncPruneStep> {
  return db.transaction().execute(async (trx) => {
    // The locker's row first, and by a write, as every order change takes it
    // (recordLockerChange): the same lock order, so no deadlock with a change to one of these
    // orders; a second pruner of the same locker waits here briefly and then reads the raised
    // floor. On SQLite a first write also takes the write lock up front: a transaction that
    // read first would fail with SQLITE_BUSY if another process wrote before its first write.
    const row = await trx
      .updateTable('locker_sync')
      .set((eb) => ({ floor: eb.ref('floor') }))
      .where('postomatId', '=', postomatId)
      .returning('floor')
      .executeTakeFirst();
    const floor = Number(row?.floor ?? cutoff);
    if (floor >= cutoff) return { deleted: 0, raised: false, done: true };

    const changes = await trx
      .selectFrom('locker_sync_change as c')
      .leftJoin('locker_order as o', 'o.id', 'c.orderId')
      .select(['c.orderId', 'c.version', 'o.postomatId', 'o.status', 'o.isActive'])
      .where('c.postomatId', '=', postomatId)
      .where('c.version', '>', floor)
      .where('c.version', '<=', cutoff)
      .orderBy('c.version')
      .limit(limit)
      .execute();
    const gone = changes
      .filter(
        (c) =>
          c.postomatId === null ||
          c.status === null ||
          c.isActive === null ||
          !heldByLocker({ postomatId: c.postomatId, status: c.status, isActive: Number(c.isActive) }, postomatId),
      )
      .map((c) => c.orderId);
    let count = 0;
    if (gone.length) {
      count = deleted(
        await trx
          .deleteFrom('locker_sync_change')
          .where('postomatId', '=', postomatId)
          .where('orderId', 'in', gone)
          .where('version', '<=', cutoff)
          .executeTakeFirstOrThrow(),
      );
    }
    const through = changes.length < limit ? cutoff : Number(changes[changes.length - 1].version);
    await trx
      .updateTable('locker_sync')
      .set({ floor: through })
      .where('postomatId', '=', postomatId)
      .where('floor', '<', through)
      .execute();
    // Checkpoints the floor has passed date nothing that is still on record.
    await trx
      .deleteFrom('locker_sync_checkpoint')
      .where('postomatId', '=', postomatId)
      .where('version', '<=', through)
      .execute();
    return { deleted: count, raised: true, done: through >= cutoff };
  });
}

/** Locker API Idempotency-Keys created before `before` (past their 24 hours). */
export async function pruneLockerIdempotencyKeys(db: Db, before: string, limit: number): Promise<number> {
  const keys = await db
    .selectFrom('locker_idempotency')
    .select(['companyId', 'key'])
    .where('createdAt', '<', before)
    .limit(limit)
    .execute();
  if (!keys.length) return 0;
  // The age is checked again by the delete: a key taken over meanwhile has a fresh createdAt.
  const r = await db
    .deleteFrom('locker_idempotency')
    .where((eb) => eb.or(keys.map((k) => eb.and([eb('companyId', '=', k.companyId), eb('key', '=', k.key)]))))
    .where('createdAt', '<', before)
    .executeTakeFirstOrThrow();
  return Number(r.numDeletedRows);
}

/**
 * Webhook subscription events created before `before` whose deliveries are all finished
 * (delivered or dead), with their deliveries and attempts; an event with a delivery still due
 * stays whatever its age.
 */
export async function pruneWebhookEvents(db: Db, before: string, limit: number): Promise<number> {
  const events = await db
    .selectFrom('webhook_event as e')
    .select('e.eventId')
    .where('e.createdAt', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_delivery as d')
            .select('d.id')
            .whereRef('d.eventId', '=', 'e.eventId')
            .where('d.state', 'in', ['PENDING', 'SENDING']),
        ),
      ),
    )
    .limit(limit)
    .execute();
  if (!events.length) return 0;
  const ids = events.map((e) => e.eventId);
  return db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('webhook_attempt')
      .where('deliveryId', 'in', trx.selectFrom('webhook_delivery').select('id').where('eventId', 'in', ids))
      .execute();
    await trx.deleteFrom('webhook_delivery').where('eventId', 'in', ids).execute();
    const r = await trx.deleteFrom('webhook_event').where('eventId', 'in', ids).executeTakeFirstOrThrow();
    return Number(r.numDeletedRows);
  });
}
