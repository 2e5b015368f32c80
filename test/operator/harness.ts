/** Runs operator commands in-process on a test storage, one storage per describe block. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import crypto from 'node:crypto';
import pg from 'pg';
import { runOperator, type RunResult } from '../../cloud/operator/cli.ts';
import { openStorage, type Storage } from '../../cloud/storage/database.ts';
import { openTestStorage, type TestDialect } from '../helpers/storage.ts';

type TestStorage = Storage & { destroy(): Promise<void> };

/**
 * openTestStorage, except that on PostgreSQL the schema gets Kysely's migration tables before
 * migrating. Kysely's Migrator looks for them in every schema (no migrationTableSchema is
 * set), so while another test's schema holds them it skips creating ours and then fails with
 * 'relation "kysely_migration_lock" does not exist'. That same lookup introspects every schema,
 * and fails with 'schema … does not exist' when another test drops its schema meanwhile: then
 * we try again. Drop this once migrateToLatest passes the schema to the Migrator.
 */
async function openIsolatedStorage(dialect: TestDialect): Promise<TestStorage> {
  if (dialect.name !== 'postgres') return openTestStorage(dialect);
  for (let attempt = 1; ; attempt++) {
    try {
      return await openPostgresSchema(dialect.url);
    } catch (err) {
      if (attempt >= 5 || !/does not exist/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

async function openPostgresSchema(url: string): Promise<TestStorage> {
  const schema = `t_op_${crypto.randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(
    `create schema ${schema};
     create table ${schema}.kysely_migration (name varchar(255) not null primary key, timestamp varchar(255) not null);
     create table ${schema}.kysely_migration_lock (id varchar(255) not null primary key, is_locked integer not null default 0);`,
  );
  let s: Storage;
  try {
    s = await openStorage(url, { schema, poolSize: 5 });
  } catch (err) {
    await admin(`drop schema if exists ${schema} cascade`);
    throw err;
  }
  return {
    ...s,
    async destroy() {
      await s.close();
      await admin(`drop schema if exists ${schema} cascade`);
    },
  };
}

export interface Operator {
  storage(): TestStorage;
  /** the raw result, for exit codes and messages */
  run(...argv: string[]): Promise<RunResult>;
  /** runs with --json, asserts success and returns the parsed output */
  json(...argv: string[]): Promise<any>;
  /** runs, asserts the exit code, returns stderr */
  fails(code: 1 | 2, ...argv: string[]): Promise<string>;
}

/** Call inside a describe: opens the storage before its tests and destroys it after. */
export function useOperator(dialect: TestDialect): Operator {
  let storage: TestStorage;
  before(async () => {
    storage = await openIsolatedStorage(dialect);
  });
  after(async () => {
    await storage.destroy();
  });
  const run = (...argv: string[]) => runOperator(argv, {}, storage);
  return {
    storage: () => storage,
    run,
    async json(...argv) {
      const r = await run(...argv, '--json');
      assert.equal(r.code, 0, `${argv.join(' ')} failed: ${r.stderr}`);
      return JSON.parse(r.stdout);
    },
    async fails(code, ...argv) {
      const r = await run(...argv);
      assert.equal(r.code, code, `${argv.join(' ')}: expected exit ${code}, got ${r.code}; stdout ${r.stdout} stderr ${r.stderr}`);
      assert.equal(r.stdout, '');
      return r.stderr;
    },
  };
}
