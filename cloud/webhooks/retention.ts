/**
 * Retention of the extensions' rows (docs/retention.md): Locker API idempotency keys past their
 * 24 hours, and webhook events past the outbox's window whose deliveries are all finished
 * (delivered or dead), with their deliveries and attempts. An event with a delivery still due
 * stays whatever its age. Each call removes at most `limit` keys or events.
 */
import type { Db } from '../storage/database.ts';

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
