import { sql, type Kysely, type CreateTableBuilder } from 'kysely';
import type { DialectName } from '../db-types.ts';

/** An auto-increment integer primary key: `serial` on PostgreSQL, rowid alias on SQLite. */
export function autoId<T extends string>(t: CreateTableBuilder<T, any>, dialect: DialectName) {
  return dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export function timestamps<T extends string>(t: CreateTableBuilder<T, any>) {
  return t.addColumn('createdAt', 'text', (c) => c.notNull()).addColumn('updatedAt', 'text', (c) => c.notNull());
}

export async function raw(db: Kysely<any>, statement: string): Promise<void> {
  await sql.raw(statement).execute(db);
}
