import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * An order's codes are read by (orderId, type) on every order read; an index that holds the
 * whole code answers from the index alone, without a second lookup into three rows per order.
 * It replaces the narrower index of 001, which it covers.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await raw(
    db,
    'create index order_code_lookup on order_code ("orderId", "type", "id", "password", "createdAt", "updatedAt")',
  );
  await raw(db, 'drop index order_code_order');
}
