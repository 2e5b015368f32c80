import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/** The locker sync: versions and change rows, agent link state, events in, staff commands out. */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  const s = db.schema;
  await s
    .createTable('locker_sync')
    .addColumn('postomatId', 'text', (c) => c.primaryKey().references('postomat.id'))
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('publishedVersion', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('floor', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // The publisher's poll reads only lockers with something unpublished.
  await raw(
    db,
    'create index locker_sync_unpublished on locker_sync ("postomatId") where "version" > "publishedVersion"',
  );

  await s
    .createTable('locker_sync_change')
    .addColumn('postomatId', 'text', (c) => c.notNull())
    .addColumn('orderId', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('locker_sync_change_pk', ['postomatId', 'orderId'])
    .execute();
  await raw(db, 'create index locker_sync_change_version on locker_sync_change ("postomatId", "version")');

  await s
    .createTable('locker_link')
    .addColumn('postomatId', 'text', (c) => c.primaryKey().references('postomat.id'))
    .addColumn('online', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('agentVersion', 'text')
    .addColumn('reportedVersion', 'bigint')
    .addColumn('connectionAt', 'text')
    .addColumn('cells', 'text')
    .addColumn('cellsAt', 'text')
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('locker_event')
    .addColumn('postomatId', 'text', (c) => c.notNull())
    .addColumn('eventId', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('orderId', 'text')
    .addColumn('cellId', 'text')
    .addColumn('detail', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('receivedAt', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addPrimaryKeyConstraint('locker_event_pk', ['postomatId', 'eventId'])
    .execute();
  await raw(db, 'create index locker_event_received on locker_event ("postomatId", "receivedAt")');
  await raw(db, 'create index locker_event_order on locker_event ("orderId")');

  await s
    .createTable('locker_command')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('postomatId', 'text', (c) => c.notNull())
    .addColumn('orderId', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('cellId', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('sentAt', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('answeredAt', 'text')
    .addColumn('error', 'text')
    .execute();
  await raw(
    db,
    'create index locker_command_open on locker_command ("postomatId", "createdAt") where "state" in (\'PENDING\', \'SENT\')',
  );
  await raw(db, 'create index locker_command_order on locker_command ("orderId")');
}
