/**
 * `npm test` says which databases it covered (issue 16, point 14): with PostgreSQL running and
 * TEST_DATABASE_URL unset, a run used to report "0 skipped" and never say PostgreSQL did not run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = async (env: Record<string, string | undefined>) => {
  const { stdout } = await promisify(execFile)('bash', ['scripts/test-databases.sh'], {
    cwd: ROOT,
    env: { ...process.env, TEST_DATABASE_URL: undefined, ...env },
  });
  return stdout.split('\n').filter(Boolean);
};
const postgresLine = (lines: string[]) => lines.find((l) => l.startsWith('PostgreSQL suites:'));

describe('scripts/test-databases.sh (printed by npm test before and after the run)', () => {
  let server: net.Server;
  let port: number;
  before(async () => {
    // Something listening where PostgreSQL would be.
    server = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('says PostgreSQL was skipped, and how to include it, when it is running but TEST_DATABASE_URL is unset', async () => {
    const lines = await run({ PGHOST: '127.0.0.1', PGPORT: String(port) });
    assert.equal(lines[0], 'SQLite suites: included');
    assert.equal(
      postgresLine(lines),
      `PostgreSQL suites: skipped (TEST_DATABASE_URL unset; PostgreSQL seems to be running on 127.0.0.1:${port} — set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:${port}/<database> to include it)`,
    );
  });

  it('says PostgreSQL was skipped when nothing answers', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    assert.equal(
      postgresLine(await run({ PGHOST: '127.0.0.1', PGPORT: String(closed) })),
      'PostgreSQL suites: skipped (TEST_DATABASE_URL unset)',
    );
  });

  it('says PostgreSQL was included, without the password of its URL', async () => {
    const line = postgresLine(await run({ TEST_DATABASE_URL: 'postgres://tester:hunter2@db.example:5433/plk_test' }));
    assert.equal(line, 'PostgreSQL suites: included (postgres://tester:***@db.example:5433/plk_test)');
  });

  it('npm test prints the same lines', async () => {
    const script = await import('node:fs').then((fs) => fs.readFileSync(path.join(ROOT, 'scripts/test.sh'), 'utf8'));
    assert.match(script, /coverage="\$\(bash scripts\/test-databases\.sh\)"/);
    assert.match(
      script,
      /printf '\\n%s\\n' "\$coverage"\nexit "\$status"/,
      "after the run too, with the run's exit status",
    );
  });
});
