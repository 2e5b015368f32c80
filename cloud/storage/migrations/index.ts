/**
 * Migrations are code, listed here in order, and shared by both dialects; the few
 * differences (auto-increment ids) go through the helpers in `types.ts`.
 *
 * Our own small runner rather than Kysely's Migrator: that one introspects every schema of
 * the database to find its bookkeeping tables, which misleads it (and races) when other
 * schemas on the same PostgreSQL database hold theirs, as parallel test schemas do.
 * Here everything runs in one transaction, serialised across processes by an advisory lock
 * on PostgreSQL and by SQLite's write lock.
 */
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import * as m001 from './001_locker.ts';
import * as m004 from './004_events.ts';
import * as m005 from './005_read_paths.ts';
import * as m006 from './006_platform.ts';
import * as m007 from './007_sync.ts';
import * as m008 from './008_covering_reads.ts';
import * as m009 from './009_platform_search.ts';
import * as m010 from './010_client_search.ts';
import * as m011 from './011_change_notices.ts';
import * as m012 from './012_retention.ts';
import * as m015 from './015_bulk_jobs.ts';
import * as m016 from './016_locker_safety.ts';
import * as m017 from './017_field.ts';
import * as m019 from './019_sync_publish_claim.ts';
import * as m022 from './022_webhook_subscriptions.ts';
import * as m023 from './023_api_hygiene.ts';
import * as m024 from './024_cell_sizes.ts';
import * as m025 from './025_returns.ts';
import * as m027 from './027_platform_webhook_subscriptions.ts';
import * as m028 from './028_outbox_due_order.ts';

export interface DialectMigration {
  up(db: Kysely<any>, dialect: DialectName): Promise<void>;
}

export const MIGRATIONS: Array<[name: string, migration: DialectMigration]> = [
  ['001_locker', m001],
  ['004_events', m004],
  ['005_read_paths', m005],
  ['006_platform', m006],
  ['007_sync', m007],
  ['008_covering_reads', m008],
  ['009_platform_search', m009],
  ['010_client_search', m010],
  ['011_change_notices', m011],
  ['012_retention', m012],
  ['015_bulk_jobs', m015],
  ['016_locker_safety', m016],
  ['017_field', m017],
  ['019_sync_publish_claim', m019],
  ['022_webhook_subscriptions', m022],
  ['023_api_hygiene', m023],
  ['024_cell_sizes', m024],
  ['025_returns', m025],
  ['027_platform_webhook_subscriptions', m027],
  ['028_outbox_due_order', m028],
];

const LOCK_KEY = 7_340_021;

/** Applies the migrations not yet applied; `migrations` (a prefix of the list) lets a test build an older schema. */
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName, migrations = MIGRATIONS): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${LOCK_KEY})`.execute(trx);
    else
      await sql`create table if not exists schema_migration (name text primary key, "appliedAt" text not null)`.execute(
        trx,
      );
    if (dialect === 'postgres') {
      await sql`create table if not exists schema_migration (name text primary key, "appliedAt" text not null)`.execute(
        trx,
      );
    }
    const done = new Set(
      (await trx.selectFrom('schema_migration').select('name').execute()).map((r: { name: string }) => r.name),
    );
    for (const [name, migration] of migrations) {
      if (done.has(name)) continue;
      try {
        await migration.up(trx, dialect);
      } catch (err) {
        throw new Error(`database migration ${name} failed: ${(err as Error).message}`);
      }
      await trx.insertInto('schema_migration').values({ name, appliedAt: new Date().toISOString() }).execute();
    }
  });
}
