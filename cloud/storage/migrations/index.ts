/**
 * Migrations are code, listed here in order, and shared by both dialects; the few
 * differences (auto-increment ids) go through the helpers in `types.ts`.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from '../database.ts';
import * as m001 from './001_locker.ts';

export interface DialectMigration {
  up(db: Kysely<any>, dialect: DialectName): Promise<void>;
}

const MIGRATIONS: Record<string, DialectMigration> = {
  '001_locker': m001,
};

/** Later issues append to this list through `registerMigration`, keeping names sorted. */
export function registerMigration(name: string, migration: DialectMigration): void {
  MIGRATIONS[name] = migration;
}

export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS)) out[name] = { up: (d) => m.up(d, dialect) };
      return out;
    },
  };
  // Kysely looks for its bookkeeping tables in every schema unless told which: name ours, or
  // another schema's tables on the same database (tests, other tenants) would mislead it.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0].s : undefined;
  const migrator = new Migrator({ db, provider, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}
