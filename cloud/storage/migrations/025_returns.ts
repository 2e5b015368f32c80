import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';

/**
 * Returns at the locker (issue 22): an order's kind, DELIVERY (the spec's orders, every order
 * written before) or RETURN (the sender drops the parcel off, a courier collects it).
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('locker_order')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('DELIVERY'))
    .execute();
}
