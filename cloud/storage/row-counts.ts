/**
 * Database-wide counts: the gauges only the database can answer (cloud/metrics/database-gauges.ts)
 * and whether a database is empty enough for the demo seeds (cloud/operator/demo/).
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { WAITING } from './outbox-queries.ts';

/** Outbox rows waiting or being sent, per kind, with the oldest one's creation. */
export function waitingOutboxByKind(db: Db) {
  return db
    .selectFrom('outbox_event')
    .select(['kind', sql<number>`count(*)`.as('n'), sql<string | null>`min("createdAt")`.as('oldest')])
    .where(WAITING)
    .groupBy('kind')
    .execute();
}

/** Staff commands not yet answered, per state. */
export function openCommandsByState(db: Db) {
  return db
    .selectFrom('locker_command')
    .select(['state', sql<number>`count(*)`.as('n')])
    .where('state', 'in', ['PENDING', 'SENT'])
    .groupBy('state')
    .execute();
}

export async function onlineLockerCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('locker_link')
    .select(sql<number>`count(*)`.as('n'))
    .where('online', '=', 1)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function rowCount(db: Db, table: 'locker_company' | 'postomat' | 'platform_company'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
