import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { autoId } from './types.ts';

/**
 * Rewrites of many rows that one operator change calls for (a company renamed: its cargo's
 * search text), done in short transactions of a batch each. The job row commits with the
 * change; each batch advances its cursor in the batch's own transaction, so a process that
 * dies half-way leaves the rest to whoever runs the jobs next (the cloud, or the next command).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await autoId(db.schema.createTable('bulk_job'), dialect)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('targetId', 'integer', (c) => c.notNull())
    .addColumn('phase', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('afterId', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
}
