/**
 * `/health` (alive) and `/ready` (database answers, migrations current, broker link up), as a
 * load balancer polls them (docs/operations.md).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { until } from '../sync/harness.ts';
import { checkReadiness } from '../../cloud/http/readiness.ts';

for (const dialect of DIALECTS) {
  describe(`/health and /ready (${dialect.name})`, () => {
    let cloud: TestCloud;
    before(async () => {
      cloud = await startTestCloud(dialect);
    });
    after(() => cloud.stop());

    it('is alive and ready when the database, its migrations and the broker are', async () => {
      const health = await cloud.request('GET', '/health');
      assert.deepEqual([health.status, health.body], [200, { status: 'ok' }]);
      const ready = await cloud.request('GET', '/ready');
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(ready.body, { status: 'ready', database: 'ok', migrations: 'current', broker: 'connected' });
    });

    it('is not ready while a migration this code knows is missing, and ready with one it does not know', async () => {
      const db = cloud.storage.db;
      const last = await sql<{
        name: string;
        appliedAt: string;
      }>`select name, "appliedAt" from schema_migration order by name desc limit 1`.execute(db);
      const row = last.rows[0]!;
      await sql`delete from schema_migration where name = ${row.name}`.execute(db);
      try {
        const res = await cloud.request('GET', '/ready');
        assert.equal(res.status, 503);
        assert.equal(res.body.status, 'not ready');
        assert.equal(res.body.migrations, 'pending');
      } finally {
        await sql`insert into schema_migration (name, "appliedAt") values (${row.name}, ${row.appliedAt})`.execute(db);
      }
      await sql`insert into schema_migration (name, "appliedAt") values ('999_from_a_newer_release', ${new Date().toISOString()})`.execute(
        db,
      );
      try {
        const res = await cloud.request('GET', '/ready');
        assert.equal(res.status, 200);
        assert.equal(res.body.migrations, 'newer');
      } finally {
        await sql`delete from schema_migration where name = '999_from_a_newer_release'`.execute(db);
      }
    });

    it('is not ready while the broker link is down, and ready again once it is back', async () => {
      await cloud.sync.broker!.restart(async () => {
        await until('link down seen', async () =>
          (await cloud.request('GET', '/ready')).status === 503 ? true : undefined,
        );
        const res = await cloud.request('GET', '/ready');
        assert.equal(res.body.broker, 'disconnected');
        assert.equal((await cloud.request('GET', '/health')).status, 200, 'still alive');
      });
      await until('ready again', async () =>
        (await cloud.request('GET', '/ready')).status === 200 ? true : undefined,
      );
    });
  });
}

describe('checkReadiness', () => {
  it('calls a database that does not answer unreachable, within its deadline', async () => {
    const hung = { executeQuery: () => new Promise(() => {}) };
    const db = {
      getExecutor: () => ({
        ...hung,
        transformQuery: (q: unknown) => q,
        compileQuery: (q: unknown) => ({ sql: 'select 1', parameters: [], query: q }),
        adapter: {},
      }),
    } as any;
    const r = await checkReadiness({ db, brokerConnected: () => true }, 50);
    assert.deepEqual(r, { ready: false, database: 'unreachable', migrations: 'unknown', broker: 'connected' });
  });
});
