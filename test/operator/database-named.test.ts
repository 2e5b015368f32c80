/**
 * An operator command that does not find a record names the database it looked in (issue 16,
 * point 14): run without repeating DATABASE_URL, `error: no order …` read like a lost order.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, openTestStorage } from '../helpers/storage.ts';
import { runOperator } from '../../cloud/operator/cli.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// tsx resolved from here, so the CLI can run from any folder, as an operator would.
const TSX = import.meta.resolve('tsx');

function cli(args: string[], cwd: string, env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ['--import', TSX, path.join(ROOT, 'cloud/operator/cli.ts'), ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('operator errors about a missing record name the database', () => {
  it('DATABASE_URL unset: the default SQLite file, as an absolute path, and that it was the default', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-opdb-'));
    try {
      const r = await cli(['order', 'show', '--id', 'noorder'], dir, { DATABASE_URL: undefined });
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr,
        `error: no order noorder in sqlite:${path.join(dir, 'data', 'cloud.db')} (DATABASE_URL is not set: the default ./data/cloud.db)\n`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('other refusals keep their wording', async () => {
    const storage = await openTestStorage(DIALECTS[0]);
    try {
      const r = await runOperator(
        [
          'company',
          'withdraw',
          '--id',
          (await runOperator(['company', 'create', '--title', 'X', '--json'], {}, storage)).stdout.match(
            /"id": "([^"]+)"/,
          )![1],
          '--amount',
          '5',
        ],
        {},
        storage,
      );
      assert.deepEqual([r.code, r.stderr], [1, 'error: the balance cannot go below zero\n']);
    } finally {
      await storage.destroy();
    }
  });

  for (const dialect of DIALECTS) {
    it(`[${dialect.name}] names the database given, without its password`, async () => {
      const storage = await openTestStorage(dialect);
      try {
        const url = new URL(
          storage.databaseUrl.startsWith('postgres') ? storage.databaseUrl : `file:${storage.databaseUrl}`,
        );
        if (dialect.name === 'postgres') url.password = 's3cret-pw';
        const given = dialect.name === 'postgres' ? url.toString() : storage.databaseUrl;
        for (const argv of [
          ['order', 'show', '--id', 'noorder'],
          ['locker', 'show', '--id', 'nolocker'],
          ['parcel', 'show', '--track-code', 'NOPE'],
        ]) {
          const r = await runOperator(argv, { DATABASE_URL: given });
          assert.equal(r.code, 1, r.stderr);
          const where =
            dialect.name === 'postgres' ? given.replace('s3cret-pw', '***') : `sqlite:${storage.databaseUrl}`;
          assert.ok(r.stderr.endsWith(` in ${where}\n`), r.stderr);
          assert.ok(!r.stderr.includes('s3cret-pw'));
        }
      } finally {
        await storage.destroy();
      }
    });
  }
});
