import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * A locker in the field (issue 20): one-time enrolment codes (stored as digests only), and the
 * last health report and self-test report of each locker, as the operator sees them.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('locker_enrolment')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
    .addColumn('codeHash', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('usedAt', 'text')
    .execute();
  await raw(db, 'create unique index locker_enrolment_code on locker_enrolment ("codeHash")');
  await raw(db, 'create index locker_enrolment_locker on locker_enrolment ("postomatId")');

  for (const table of ['locker_health', 'locker_self_test']) {
    await db.schema
      .createTable(table)
      .addColumn('postomatId', 'text', (c) => c.primaryKey().references('postomat.id'))
      .addColumn('report', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('receivedAt', 'text', (c) => c.notNull())
      .execute();
  }
}
