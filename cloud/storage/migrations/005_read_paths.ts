import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * - order_stats.version: bumped by every change to a company's counters, so a cached figure
 *   derived from a status's orders (the expired aggregate) knows exactly when it is stale;
 * - postomat.updatedAt index: the locker point cache refreshes only what changed.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('order_stats')
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await raw(db, 'create index postomat_updated on postomat ("updatedAt")');
}
