import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * Locker API idempotency keys (issue 22): the first request claims (companyId, key) in the
 * transaction that does its work and stores its answer there; and the time an order was
 * cancelled by its company before placement.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('locker_idempotency')
    .addColumn('companyId', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('requestHash', 'text', (c) => c.notNull())
    .addColumn('responseStatus', 'integer')
    .addColumn('responseBody', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('locker_idempotency_pk', ['companyId', 'key'])
    .execute();
  await raw(db, 'create index locker_idempotency_created on locker_idempotency ("createdAt")');
  await db.schema.alterTable('locker_order').addColumn('cancelledAt', 'text').execute();
}
