import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * No parcel stranded, no company shutting out another (issue 16):
 * - codes unique per keypad space (shared/locker-codes.ts) instead of across all three types;
 * - the orders waiting for placement counted per locker and company, and archived when never
 *   placed (`expiredAt`);
 * - attempts at locker events that keep failing, and the alarms the operator must look at.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  // The spec's rule (one type) for DOWN, and UP with SUBTRACT together: both open a placed
  // parcel's cell. The first also covers the read of a locker's live codes by type.
  await raw(db, 'drop index order_code_active_unique');
  await raw(
    db,
    'create unique index order_code_type_unique on order_code ("postomatId", "type", "password") where "active" = 1',
  );
  await raw(
    db,
    'create unique index order_code_open_unique on order_code ("postomatId", "password") where "active" = 1 and "type" <> \'DOWN\'',
  );

  await db.schema.alterTable('locker_order').addColumn('expiredAt', 'text').execute();
  // A company's orders waiting for their parcel at one locker: counted at every creation.
  await raw(
    db,
    'create index locker_order_pending on locker_order ("postomatId", "companyId") where "status" = \'CREATED\' and "isActive" = 1',
  );

  await db.schema
    .createTable('locker_event_attempt')
    .addColumn('postomatId', 'text', (c) => c.notNull())
    .addColumn('eventId', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('firstAt', 'text', (c) => c.notNull())
    .addColumn('lastAt', 'text', (c) => c.notNull())
    .addColumn('lastError', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('locker_event_attempt_pk', ['postomatId', 'eventId'])
    .execute();

  await db.schema
    .createTable('locker_alarm')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('eventId', 'text')
    .addColumn('orderId', 'text')
    .addColumn('cellId', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('raisedAt', 'text', (c) => c.notNull())
    .addColumn('resolvedAt', 'text')
    .addColumn('resolution', 'text')
    .execute();
  await raw(db, 'create index locker_alarm_open on locker_alarm ("postomatId", "raisedAt") where "resolvedAt" is null');
  // One alarm per event however many processes handle it, one open cell-map alarm per locker.
  await raw(
    db,
    'create unique index locker_alarm_event on locker_alarm ("postomatId", "eventId") where "eventId" is not null',
  );
  await raw(
    db,
    'create unique index locker_alarm_open_kind on locker_alarm ("postomatId", "kind") where "resolvedAt" is null and "eventId" is null',
  );
}
