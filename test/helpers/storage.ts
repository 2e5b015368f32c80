/**
 * One suite, every database: SQLite always (a temp file, WAL as in production), PostgreSQL
 * too when TEST_DATABASE_URL is set, each test storage in a schema of its own that is
 * dropped afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { openStorage, type DialectName, type Storage } from '../../cloud/storage/database.ts';

export interface TestDialect {
  name: DialectName;
  url: string;
}

export const DIALECTS: TestDialect[] = [
  { name: 'sqlite', url: 'sqlite' },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres' as const, url: process.env.TEST_DATABASE_URL }] : []),
];

export interface TestStorage extends Storage {
  /** a DATABASE_URL that reaches this same storage from another process */
  databaseUrl: string;
  /** extra environment for a child process (the PostgreSQL schema) */
  childEnv: Record<string, string>;
  destroy(): Promise<void>;
}

/** `migrate: false` leaves the database empty (a migration test builds an older schema itself). */
export async function openTestStorage(dialect: TestDialect, options: { migrate?: boolean } = {}): Promise<TestStorage> {
  const tag = crypto.randomBytes(5).toString('hex');
  if (dialect.name === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-test-'));
    const file = path.join(dir, 'cloud.db');
    const s = await openStorage(file, options);
    return {
      ...s,
      databaseUrl: file,
      childEnv: {},
      async destroy() {
        await s.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${tag}`;
  const dropSchema = async () => {
    const c = new pg.Client({ connectionString: dialect.url });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  };
  const s = await openStorage(dialect.url, { ...options, schema, poolSize: 5 }).catch(async (err) => {
    await dropSchema();
    throw err;
  });
  return {
    ...s,
    databaseUrl: withSearchPath(dialect.url, schema),
    childEnv: { PGOPTIONS: `-c search_path=${schema}` },
    async destroy() {
      await s.close();
      await dropSchema();
    },
  };
}

/** pg honours `options` in the connection string, so a child process lands in the same schema. */
function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}
