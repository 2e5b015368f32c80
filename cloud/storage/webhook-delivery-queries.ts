/**
 * Webhook subscription deliveries as the sender works them (webhooks/sender.ts): due ones
 * claimed in batches under a lease (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite's single writer
 * elsewhere), so each attempt is made by exactly one process; the attempts of a batch recorded
 * together; deliveries handed back unsent. How long to wait before the next attempt is
 * webhooks/backoff.ts's.
 */
import { sql } from 'kysely';
import type { Db, DialectName } from './database.ts';
import { newId } from './ids.ts';
import type { WebhookDeliveryTable } from './webhook-schema.ts';

/** When the next pending delivery falls due, if any is pending. */
export function nextPendingDelivery(db: Db) {
  return db
    .selectFrom('webhook_delivery')
    .select('nextAttemptAt')
    .where('state', '=', 'PENDING')
    .orderBy('nextAttemptAt')
    .limit(1)
    .executeTakeFirst();
}

/** Who claims, and until when: `nowIso` tells a delivery due, or a lease that ran out, from one that holds. */
export interface DeliveryClaim {
  workerId: string;
  nowIso: string;
  claimedUntil: string;
}

/**
 * Claims due deliveries, and those whose holder's lease ran out, none for the subscriptions in
 * `busy`: the expired claims first, then the due ones in the order they fell due, each an UPDATE
 * of the rows its SELECT picks. Two statements rather than one with an OR: the OR made SQLite
 * read every due delivery and every claimed one and sort them all for each batch, where each
 * half alone reads its rows in index order (state, nextAttemptAt) and stops at the batch.
 */
export async function claimDeliveries(
  db: Db,
  dialect: DialectName,
  claim: DeliveryClaim,
  limit: number,
  busy: readonly string[],
): Promise<WebhookDeliveryTable[]> {
  const { nowIso } = claim;
  const expired = (eb: any) => eb.and([eb('state', '=', 'SENDING'), eb('claimedUntil', '<', nowIso)]);
  const due = (eb: any) => eb.and([eb('state', '=', 'PENDING'), eb('nextAttemptAt', '<=', nowIso)]);
  const notBusy = (q: any) => (busy.length ? q.where('subscriptionId', 'not in', busy) : q);
  // Read first: an UPDATE would take SQLite's write lock on every poll, even with nothing due
  // (inside a transaction that has written, a settle, the lock is held already).
  if (
    !db.isTransaction &&
    !(await notBusy(
      db
        .selectFrom('webhook_delivery')
        .select('id')
        .where((eb) => eb.or([due(eb), expired(eb)])),
    )
      .limit(1)
      .executeTakeFirst())
  )
    return [];
  const take = async (which: (eb: any) => unknown, n: number): Promise<WebhookDeliveryTable[]> => {
    if (n <= 0) return [];
    let ids = notBusy(
      db
        .selectFrom('webhook_delivery')
        .select('id')
        .where(which as any),
    )
      .orderBy('nextAttemptAt')
      .limit(n);
    if (dialect === 'postgres') ids = ids.forUpdate().skipLocked();
    return db
      .updateTable('webhook_delivery')
      .set({ state: 'SENDING', claimedBy: claim.workerId, claimedUntil: claim.claimedUntil })
      .where('id', 'in', ids)
      .returningAll()
      .execute();
  };
  const again = await take(expired, limit);
  const rows = [...again, ...(await take(due, limit - again.length))];
  return rows.sort((a, b) => (a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : 0));
}

/** The stored bodies of these events. */
export function eventBodies(db: Db, eventIds: string[]) {
  return db.selectFrom('webhook_event').select(['eventId', 'body']).where('eventId', 'in', eventIds).execute();
}

/** These subscriptions, deleted or not. */
export function subscriptionsByIds(db: Db, ids: string[]) {
  return db.selectFrom('webhook_subscription').selectAll().where('id', 'in', ids).execute();
}

/** What came of one attempt at a delivery. */
export interface DeliveryOutcome {
  id: string;
  state: 'DELIVERED' | 'PENDING' | 'DEAD';
  /** this attempt's number */
  attempt: number;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  /** when it was made */
  at: string;
  /** the next attempt, when there is one */
  next: string | null;
}

/**
 * Attempts recorded together, in the caller's transaction: one UPDATE of the deliveries
 * `workerId` still holds, each row's values joined from a VALUES list, and one INSERT of their
 * attempts. A delivery whose lease ran out and that another process claimed is left out: that
 * process's attempt is the one on record.
 */
export async function settleDeliveries(trx: Db, workerId: string, outcomes: DeliveryOutcome[]): Promise<void> {
  const values = sql.join(
    outcomes.map(
      (o) =>
        sql`(${o.id}, ${o.state}, cast(${o.attempt} as integer), cast(${o.httpStatus} as integer), cast(${o.error} as text), ${o.next ?? o.at}, cast(${o.next ? null : o.at} as text))`,
    ),
  );
  const updated = (await trx
    .updateTable('webhook_delivery')
    .from(sql`(values ${values})`.as('v') as any)
    .set({
      state: sql`v.column2`,
      attempts: sql`v.column3`,
      lastStatus: sql`v.column4`,
      lastError: sql`v.column5`,
      claimedBy: null,
      claimedUntil: null,
      nextAttemptAt: sql`v.column6`,
      finishedAt: sql`v.column7`,
    } as any)
    .where(sql<boolean>`"webhook_delivery"."id" = v.column1`)
    .where('webhook_delivery.claimedBy' as any, '=', workerId)
    .where('webhook_delivery.state' as any, '=', 'SENDING')
    .returning('webhook_delivery.id' as any)
    .execute()) as { id: string }[];
  const mine = new Set(updated.map((u) => u.id));
  const attempts = outcomes
    .filter((o) => mine.has(o.id))
    .map((o) => ({
      id: newId(),
      deliveryId: o.id,
      attempt: o.attempt,
      at: o.at,
      httpStatus: o.httpStatus,
      error: o.error,
      latencyMs: o.latencyMs,
      nextAttemptAt: o.next,
    }));
  if (attempts.length) await trx.insertInto('webhook_attempt').values(attempts).execute();
}

/** Hands deliveries back unsent (due again at once), if `workerId` still holds them. */
export async function releaseDeliveries(db: Db, workerId: string, ids: string[]): Promise<void> {
  await db
    .updateTable('webhook_delivery')
    .set({ state: 'PENDING', claimedBy: null, claimedUntil: null })
    .where('id', 'in', ids)
    .where('claimedBy', '=', workerId)
    .where('state', '=', 'SENDING')
    .execute();
}
