import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * Retention (docs/retention.md): indexes that let the pruner find finished rows past their
 * window without reading the ones it keeps, and the sync checkpoints that date a locker's
 * published versions (change rows carry a version, not a time).
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  // Finished outbox rows by the time they were sent; the pending ones sit in another state range.
  await raw(db, 'create index outbox_event_finished on outbox_event ("state", "sentAt")');
  await raw(db, 'create index locker_event_received_at on locker_event ("receivedAt")');
  await raw(db, 'create index locker_command_state on locker_command ("state", "createdAt")');

  // "Version V of this locker was published by time T": a change at or below V is at least as
  // old as T. One row per locker per stretch of the window; those the floor passed are dropped.
  await db.schema
    .createTable('locker_sync_checkpoint')
    .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('locker_sync_checkpoint_pk', ['postomatId', 'version'])
    .execute();
}
