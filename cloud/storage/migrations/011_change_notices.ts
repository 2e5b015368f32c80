import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { autoId } from './types.ts';

/**
 * SQLite has no NOTIFY: a committed change that other processes must hear of leaves a notice
 * row, read by their commit watcher (storage/notifications.ts). PostgreSQL has the table too,
 * unused, so both databases keep one schema.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await autoId(db.schema.createTable('change_notice'), dialect)
    .addColumn('message', 'text', (c) => c.notNull())
    .execute();
}
