/** Which migrations the database says it has applied (readiness compares them with the ones this code knows). */
import { sql } from 'kysely';
import type { Db } from './database.ts';

export async function appliedMigrations(db: Db): Promise<Set<string>> {
  const rows = await sql<{ name: string }>`select name from schema_migration`.execute(db);
  return new Set(rows.rows.map((r) => r.name));
}
