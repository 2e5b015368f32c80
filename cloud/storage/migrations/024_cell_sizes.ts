import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * Size-aware booking (issue 22): the cell size a sized order holds and until when; a locker's
 * own inner dimensions per size (the defaults live in code); the reads that count a locker's
 * promised cells and find reservations due to lapse, each a range of a partial index.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('locker_order').addColumn('cellSize', 'text').execute();
  await db.schema.alterTable('locker_order').addColumn('reserveUntil', 'text').execute();
  await raw(
    db,
    'create index locker_order_promised on locker_order ("postomatId", "cellSize", "reserveUntil") where "status" = \'CREATED\' and "isActive" = 1 and "cellSize" is not null',
  );
  await raw(
    db,
    'create index locker_order_reservation_due on locker_order ("reserveUntil") where "status" = \'CREATED\' and "isActive" = 1 and "reserveUntil" is not null',
  );
  await db.schema
    .createTable('locker_cell_size')
    .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
    .addColumn('size', 'text', (c) => c.notNull())
    .addColumn('lengthMm', 'integer', (c) => c.notNull())
    .addColumn('widthMm', 'integer', (c) => c.notNull())
    .addColumn('heightMm', 'integer', (c) => c.notNull())
    .addColumn('maxWeightKg', 'double precision', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('locker_cell_size_pk', ['postomatId', 'size'])
    .execute();
}
