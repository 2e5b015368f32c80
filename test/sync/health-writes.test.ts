/**
 * Health reports are written in batches (cloud/sync/health-writes.ts): reports where every board
 * answers wait for one transaction together; a silent board is written at once with its alarm,
 * and an older report still waiting never overwrites it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HealthMessage } from '../../shared/mqtt/index.ts';
import { CONTRACT_VERSION } from '../../shared/mqtt/index.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { HealthWrites } from '../../cloud/sync/health-writes.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';

const at = new Date('2026-03-01T10:00:00.000Z');
const report = (uptimeSeconds: number, online = true): HealthMessage => ({
  v: CONTRACT_VERSION,
  at: at.toISOString(),
  agentVersion: 'test',
  uptimeSeconds,
  outboxSize: 0,
  storeBytes: 4096,
  boards: [{ board: 0, online, timeouts: online ? 0 : 3, checksumErrors: 0, lastAnswerAt: null }],
});

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] health reports written in batches`, () => {
    let storage: TestStorage;
    const lockers: string[] = [];
    before(async () => {
      storage = await openTestStorage(dialect);
      for (let i = 0; i < 12; i++)
        lockers.push((await createPostomat(storage.db, { title: `H${i}`, shortId: `HW${i}` }, [], at)).id);
    });
    after(() => storage.destroy());

    const stored = async (lockerId: string) => {
      const row = await storage.db
        .selectFrom('locker_health')
        .select('report')
        .where('postomatId', '=', lockerId)
        .executeTakeFirst();
      return row && (JSON.parse(row.report) as HealthMessage);
    };
    const openAlarms = async (lockerId: string) =>
      (
        await storage.db
          .selectFrom('locker_alarm')
          .select('id')
          .where('postomatId', '=', lockerId)
          .where('kind', '=', 'BOARD_SILENT')
          .where('resolvedAt', 'is', null)
          .execute()
      ).length;

    it('reports of healthy lockers wait, then go in one transaction', async () => {
      const writes = new HealthWrites({ db: storage.db, logger: silentLogger }, 60_000);
      const ten = lockers.slice(0, 10);
      for (const [i, id] of ten.entries()) await writes.record(id, report(i), at);
      // The newest report of a locker replaces the one held before it.
      await writes.record(ten[0], report(100), at);
      assert.equal(await stored(ten[0]), undefined, 'nothing written before the flush');
      const before = storage.statements();
      await writes.flush();
      const statements = storage.statements() - before;
      assert.deepEqual(
        await Promise.all(ten.map(async (id) => (await stored(id))?.uptimeSeconds)),
        [100, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
      // Per report: its upsert and the alarm it may resolve; and one begin and one commit for all.
      assert.ok(statements <= 10 * 2 + 2, `${statements} statements`);
    });

    it('a silent board is written at once with its alarm; an older report held never overwrites it', async () => {
      const writes = new HealthWrites({ db: storage.db, logger: silentLogger }, 60_000);
      const id = lockers[10];
      await writes.record(id, report(1), at);
      await writes.record(id, report(2, false), at);
      assert.equal((await stored(id))?.boards[0].online, false);
      assert.equal(await openAlarms(id), 1);
      await writes.flush();
      assert.equal((await stored(id))?.uptimeSeconds, 2, 'the silent report stays the last one');
      assert.equal(await openAlarms(id), 1);

      await writes.record(id, report(3), at);
      await writes.flush();
      assert.equal((await stored(id))?.uptimeSeconds, 3);
      assert.equal(await openAlarms(id), 0, 'every board answers again: the alarm is resolved');
    });

    it('on its own, a held report is written within flushMs', async () => {
      const writes = new HealthWrites({ db: storage.db, logger: silentLogger }, 20);
      const id = lockers[11];
      await writes.record(id, report(7), at);
      for (let i = 0; i < 100 && (await stored(id)) === undefined; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal((await stored(id))?.uptimeSeconds, 7);
    });
  });
}
