import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { ManualClock } from '../../shared/clock.ts';
import { runOperator } from '../../cloud/operator/cli.ts';
import { createLockerApiKey } from '../../cloud/services/admin/companies.ts';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { until } from '../sync/harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm run operator -- …` as a process of its own on the cloud's database. */
function operatorChild(cloud: TestCloud, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cloud/operator/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: cloud.storage.databaseUrl, ...cloud.storage.childEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

const COUNTRIES = '/api/v1/integrations/logistic-company/countries';
const LOCKER_COUNTRIES = '/api/v1/integration/company/country';

for (const dialect of DIALECTS) {
  describe(`revocation (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: PlatformWorld;
    let lw: LockerWorld;
    let admin: string;
    const clock = new ManualClock('2026-04-01T10:00:00.000Z');
    before(async () => {
      cloud = await startTestCloud(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
      lw = await seedLockerWorld(cloud.storage.db);
      admin = (
        await cloud.request('POST', '/api/v1/auth/login', {
          body: { email: 'admin@silkroad.example', password: PASSWORD },
        })
      ).body.accessToken;
    });
    after(() => cloud.stop());

    const operator = async (...argv: string[]) => {
      const r = await runOperator(argv, {}, cloud.storage);
      assert.equal(r.code, 0, r.stderr);
    };

    it('a platform API key deleted through DELETE /api/v1/logistic-company/api-key/{id} is 401 UNAUTHORIZED on the very next request', async () => {
      const made = (
        await cloud.request('POST', '/api/v1/logistic-company/api-key/create', {
          token: admin,
          body: { title: 'to rotate out' },
        })
      ).body;
      assert.equal(
        (await cloud.request('GET', COUNTRIES, { headers: { 'x-api-token': made.key } })).status,
        200,
        'in use, so known to the cache',
      );
      const del = await cloud.request('DELETE', `/api/v1/logistic-company/api-key/${made.id}`, { token: admin });
      assert.equal(del.status, 200);
      const after = await cloud.request('GET', COUNTRIES, { headers: { 'x-api-token': made.key } });
      assert.deepEqual(
        [after.status, after.body],
        [401, { statusCode: 401, error: 'Unauthorized', message: 'UNAUTHORIZED' }],
      );
      assert.equal(
        (await cloud.request('GET', COUNTRIES, { headers: { 'x-api-token': w.keys.logist.key } })).status,
        200,
        'the other keys work on',
      );
    });

    it('a Locker API key revoked by the operator is refused on the very next request (the unit of work says so after its commit)', async () => {
      const key = await createLockerApiKey(cloud.storage.db, lw.companyA.id, 'scanner', new Date());
      assert.equal((await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key })).status, 200);
      await operator('api-key', 'revoke', '--id', key.id);
      const res = await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key });
      assert.deepEqual(
        [res.status, res.body],
        [401, { statusCode: 401, error: 'Unauthorized', message: 'Unauthorized' }],
      );
      assert.equal(
        (await cloud.request('GET', LOCKER_COUNTRIES, { token: lw.companyA.key })).status,
        200,
        "the company's other key works on",
      );
    });

    it('a Locker API key revoked by the operator in another process is refused within a second or two', async () => {
      const key = await createLockerApiKey(cloud.storage.db, lw.companyA.id, 'kiosk', new Date());
      assert.equal((await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key })).status, 200);
      const cli = await operatorChild(cloud, ['api-key', 'revoke', '--id', key.id]);
      assert.equal(cli.code, 0, cli.stderr);
      // PostgreSQL NOTIFY, or SQLite's commit watcher (every 200 ms); the cache TTL (5 s) does not pass meanwhile.
      await until(
        'refused',
        async () => (await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key })).status === 401 || undefined,
        3_000,
      );
    });

    it('untold (a notification lost), a process refuses a key revoked elsewhere once its cache entry is 5 s old', async () => {
      const key = await createLockerApiKey(cloud.storage.db, lw.companyB.id, 'till', new Date());
      assert.equal((await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key })).status, 200);
      await cloud.storage.db.deleteFrom('locker_api_key').where('id', '=', key.id).execute();
      assert.equal((await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key })).status, 200, 'still cached');
      clock.advance(5_001);
      assert.equal((await cloud.request('GET', LOCKER_COUNTRIES, { token: key.key })).status, 401);
    });

    it('a platform user switched off by the operator: their token is 401 UNAUTHORIZED on the very next request', async () => {
      const token = (
        await cloud.request('POST', '/api/v1/auth/login', { body: { email: 'admin@osh.example', password: PASSWORD } })
      ).body.accessToken;
      assert.equal((await cloud.request('GET', '/api/v1/logistic-company/api-key/list', { token })).status, 200);
      await operator('platform-user', 'update', '--id', String(w.otherAdmin.id), '--active', 'false');
      const res = await cloud.request('GET', '/api/v1/logistic-company/api-key/list', { token });
      assert.deepEqual(
        [res.status, res.body],
        [401, { statusCode: 401, error: 'Unauthorized', message: 'UNAUTHORIZED' }],
      );
    });

    it('revoking forgets every cached credential, so valid ones are looked up again and still work', async () => {
      assert.equal(
        (await cloud.request('GET', COUNTRIES, { headers: { 'x-api-token': w.keys.logist.key } })).status,
        200,
      );
      assert.ok(cloud.deps.credentials!.size > 0);
      cloud.deps.credentials!.revokeAll();
      assert.equal(cloud.deps.credentials!.size, 0);
      assert.equal(
        (await cloud.request('GET', COUNTRIES, { headers: { 'x-api-token': w.keys.logist.key } })).status,
        200,
      );
    });
  });
}
