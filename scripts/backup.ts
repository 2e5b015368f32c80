/**
 * `npm run db:backup -- <file>` and `npm run db:restore -- <file>` on the database DATABASE_URL
 * names (docs/operations.md, "Backups").
 *
 * - SQLite: an online backup through better-sqlite3's `backup()` (SQLite's backup API): a
 *   consistent copy while the cloud keeps writing. Restore copies it back with every cloud
 *   process stopped, removing the WAL and shared-memory files of the replaced database.
 * - PostgreSQL: `pg_dump --format=custom` (consistent: one snapshot) and `pg_restore --clean`.
 *   A URL that sets `search_path` (options=-c search_path=…) dumps and restores that schema
 *   only. The password goes to the tools through PGPASSWORD, never on their command line.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { isPostgresUrl, redactUrl, sqlitePathFromUrl } from '../cloud/storage/database.ts';

/** Backup files hold API key hashes, agent secrets' hashes and order codes: owner-only. */
const PRIVATE = 0o600;

export async function backupDatabase(url: string, file: string): Promise<void> {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  if (isPostgresUrl(url)) {
    const { args, env } = pgConnection(url);
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`, ...args], env);
  } else {
    const source = new SQLite(sqlitePathFromUrl(url), { readonly: true, fileMustExist: true });
    try {
      await source.backup(file);
    } finally {
      source.close();
    }
  }
  fs.chmodSync(file, PRIVATE);
}

/** Replaces the database's content with the backup's. Every cloud process must be stopped first. */
export async function restoreDatabase(url: string, file: string): Promise<void> {
  if (!fs.existsSync(file)) throw new Error(`no backup at ${file}`);
  if (isPostgresUrl(url)) {
    const { args, env } = pgConnection(url);
    await run(
      'pg_restore',
      ['--clean', '--if-exists', '--no-owner', '--single-transaction', '--exit-on-error', ...args, file],
      env,
    );
    return;
  }
  // A check that it is a SQLite database at all, before anything is replaced.
  const check = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    check.pragma('schema_version');
  } finally {
    check.close();
  }
  const target = sqlitePathFromUrl(url);
  for (const suffix of ['-wal', '-shm']) fs.rmSync(target + suffix, { force: true });
  fs.copyFileSync(file, `${target}.restoring`);
  fs.chmodSync(`${target}.restoring`, PRIVATE);
  fs.renameSync(`${target}.restoring`, target);
}

/** pg_dump/pg_restore arguments for a URL: the password moved to the environment, the schema to -n. */
function pgConnection(url: string): { args: string[]; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  u.password = '';
  const schema = /search_path=([a-z_][a-z0-9_]*)/.exec(
    u.searchParams.get('options') || (process.env.PGOPTIONS ?? ''),
  )?.[1];
  // libpq reads '+' in a URI as itself, not a space: the schema goes as --schema instead.
  u.searchParams.delete('options');
  const args = [`--dbname=${u.toString()}`];
  if (schema) args.push(`--schema=${schema}`);
  return { args, env };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.once('error', (err) =>
      reject(new Error(`${command} could not start (${err.message}): install the PostgreSQL client tools`)),
    );
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} failed (${code}): ${stderr.trim()}`)),
    );
  });
}

async function main(): Promise<void> {
  const [action, file] = process.argv.slice(2);
  const url = process.env.DATABASE_URL ?? './data/cloud.db';
  if ((action !== 'backup' && action !== 'restore') || !file) {
    console.error(
      'usage: npm run db:backup -- <file>   |   npm run db:restore -- <file>   (DATABASE_URL names the database)',
    );
    process.exit(2);
  }
  if (action === 'backup') await backupDatabase(url, file);
  else await restoreDatabase(url, file);
  console.log(
    `${action === 'backup' ? 'backed up' : 'restored'} ${redactUrl(url)} ${action === 'backup' ? 'to' : 'from'} ${file}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
