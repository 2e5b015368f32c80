import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';

/**
 * One publisher per locker delta (issue 21): with several cloud processes, every one of them
 * hears of a change and each published the same delta. A process now claims a locker's
 * publishing until `publishClaimedUntil` (sync/publish-claim.ts); a process that dies holding
 * the claim leaves it to expire, and another publishes.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('locker_sync').addColumn('publishClaimedUntil', 'text').execute();
}
