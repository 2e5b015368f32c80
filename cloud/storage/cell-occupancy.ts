/**
 * Which of a locker's cells hold a parcel and which sizes are promised to orders still waiting
 * for theirs: a cell is taken while an order placed in it is DELIVERED. Each read is a range of
 * one locker's rows (cells by locker, the partial index locker_order_promised).
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';

/** Cells that are active and hold no parcel of a current order. */
export function freeCells(db: Db, postomatIds: string[]) {
  if (!postomatIds.length) return Promise.resolve([]);
  return db
    .selectFrom('cell')
    .selectAll()
    .where('postomatId', 'in', postomatIds)
    .where('isActive', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('locker_order as o')
            .select('o.id')
            .whereRef('o.cellId', '=', 'cell.id')
            .where('o.status', '=', 'DELIVERED'),
        ),
      ),
    )
    .orderBy('postomatId')
    .orderBy('number')
    .execute();
}

/** A locker's active cells per size. */
export function activeCellsBySize(db: Db, postomatId: string) {
  return db
    .selectFrom('cell')
    .select(['size', (eb) => eb.fn.countAll().as('n')])
    .where('postomatId', '=', postomatId)
    .where('isActive', '=', 1)
    .groupBy('size')
    .execute();
}

/** A locker's active cells holding a placed parcel, per size (as freeCells reads it). */
export function occupiedCellsBySize(db: Db, postomatId: string) {
  return db
    .selectFrom('cell as c')
    .innerJoin('locker_order as o', (j) => j.onRef('o.cellId', '=', 'c.id').on('o.status', '=', 'DELIVERED'))
    .select(['c.size as size', sql<number>`count(distinct ${sql.ref('c.id')})`.as('n')])
    .where('c.postomatId', '=', postomatId)
    .where('c.isActive', '=', 1)
    .groupBy('c.size')
    .execute();
}

/** Pending sized orders at a locker whose reservation still runs at `now`, per size asked for. */
export function reservedSizesAt(db: Db, postomatId: string, now: string) {
  // Literal status and flag: SQLite uses the partial index only when the query states its condition.
  return db
    .selectFrom('locker_order')
    .select(['cellSize as size', (eb) => eb.fn.countAll().as('n')])
    .where('postomatId', '=', postomatId)
    .where('status', '=', sql.lit('CREATED'))
    .where('isActive', '=', sql.lit(1))
    .where('cellSize', 'is not', null)
    .where('reserveUntil', '>', now)
    .groupBy('cellSize')
    .execute();
}
