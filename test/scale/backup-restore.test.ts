/**
 * Backups and restore (scripts/backup.ts, docs/operations.md "Backups"): a backup taken while
 * the cloud serves requests, restored with the cloud stopped, brings back exactly what was
 * committed before it, and the restarted cloud is ready and serves it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { seedLockerWorld } from '../helpers/locker-world.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { backupDatabase, restoreDatabase } from '../../scripts/backup.ts';

const BASE = '/api/v1/integration/company';

/** The same database opened again after a restore, destroyed as the original would have been. */
async function reopen(original: TestStorage, dialectUrl: string): Promise<TestStorage> {
  const s = await openStorage(original.databaseUrl);
  return {
    ...s,
    databaseUrl: original.databaseUrl,
    childEnv: original.childEnv,
    async destroy() {
      await s.close();
      const schema = original.childEnv.PGOPTIONS?.match(/search_path=(\w+)/)?.[1];
      if (schema) {
        const c = new pg.Client({ connectionString: dialectUrl });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      } else fs.rmSync(path.dirname(original.databaseUrl), { recursive: true, force: true });
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`backup and restore (${dialect.name})`, () => {
    it('restores what was committed before the online backup, and nothing after it', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-backup-'));
      const file = path.join(dir, dialect.name === 'sqlite' ? 'cloud.db.bak' : 'cloud.dump');
      const storage = await openTestStorage(dialect);
      let cloud: TestCloud | undefined = await startTestCloud(dialect, { reuse: storage });
      let restored: TestStorage | undefined;
      try {
        const w = await seedLockerWorld(storage.db);
        const create = (c: TestCloud, phone: string) =>
          c.request('POST', `${BASE}/order/create`, {
            token: w.companyA.key,
            body: { toUserPhone: phone, postomatId: w.near.id, sendMessage: false },
          });
        const before = await create(cloud, '+996555000301');
        assert.equal(before.status, 200, before.text);
        // Online: requests keep coming while the backup runs.
        const during = create(cloud, '+996555000302');
        await backupDatabase(storage.databaseUrl, file);
        await during;
        assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the backup is owner-only');
        const afterBackup = await create(cloud, '+996555000303');
        assert.equal(afterBackup.status, 200);

        await cloud.close();
        cloud = undefined;
        await storage.close();
        await restoreDatabase(storage.databaseUrl, file);
        restored = await reopen(storage, dialect.url);
        cloud = await startTestCloud(dialect, { reuse: restored });

        assert.equal((await cloud.request('GET', '/ready')).status, 200);
        const read = await cloud.request('GET', `${BASE}/order/${before.body.id}?withToUser=true`, {
          token: w.companyA.key,
        });
        assert.equal(read.status, 200);
        assert.equal(read.body.toUser.phone, '+996555000301');
        assert.equal(
          (await cloud.request('GET', `${BASE}/order/${afterBackup.body.id}`, { token: w.companyA.key })).status,
          404,
          'written after the backup',
        );
        // The restored database takes new work.
        assert.equal((await create(cloud, '+996555000304')).status, 200);
      } finally {
        await cloud?.close();
        if (restored) await restored.destroy();
        else await storage.destroy().catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
