/**
 * The orders a background job has to act on, oldest first, a batch at a time: those never
 * placed past their cutoff, and sized orders whose reservation ran out.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';

/** A company's active orders still waiting for their parcel that were created before `cutoff`: a range of its list index. */
export function unplacedOrdersDue(db: Db, companyId: string, cutoff: string, batch: number) {
  return db
    .selectFrom('locker_order')
    .select(['id', 'postomatId'])
    .where('companyId', '=', companyId)
    .where('isActive', '=', 1)
    .where('status', '=', 'CREATED')
    .where('createdAt', '<', cutoff)
    .orderBy('createdAt')
    .limit(batch)
    .execute();
}

/** Active, unplaced sized orders whose reservation ended by `now`, oldest deadline first. */
export function ordersDueToLapse(db: Db, now: string, batch: number) {
  // Literal status and flag: the partial index locker_order_reservation_due covers this read.
  return db
    .selectFrom('locker_order')
    .select(['id', 'postomatId', 'companyId'])
    .where('status', '=', sql.lit('CREATED'))
    .where('isActive', '=', sql.lit(1))
    .where('reserveUntil', 'is not', null)
    .where('reserveUntil', '<=', now)
    .orderBy('reserveUntil')
    .limit(batch)
    .execute();
}
