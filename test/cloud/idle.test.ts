/**
 * An idle cloud leaves its database alone: changes wake the publisher and the dispatcher
 * after their commit, so the polls behind them are a slow safety net, and what they ask is
 * answered from indexes of open work, however long the history. (The CPU this saves is
 * measured by `npm run bench:idle`.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { newId } from '../../cloud/storage/ids.ts';

const LOCKERS = 500;
const COMMANDS = 5_000;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] an idle cloud with history`, () => {
    let cloud: TestCloud;
    before(async () => {
      cloud = await startTestCloud(dialect);
      const db = cloud.storage.db;
      const at = '2026-01-01T00:00:00.000Z';
      const lockers = Array.from({ length: LOCKERS }, (_, i) => ({
        id: newId(),
        incrementalid: 100_000 + i,
        title: `Idle ${i}`,
        shortId: `IDLE${i}`,
        createdAt: at,
        updatedAt: at,
      }));
      for (let i = 0; i < lockers.length; i += 100)
        await db
          .insertInto('postomat')
          .values(lockers.slice(i, i + 100) as any)
          .execute();
      for (let i = 0; i < lockers.length; i += 100) {
        await db
          .insertInto('locker_link')
          .values(
            lockers.slice(i, i + 100).map((l) => ({
              postomatId: l.id,
              online: 1,
              agentVersion: '1',
              reportedVersion: 0,
              connectionAt: at,
              cells: null,
              cellsAt: null,
              updatedAt: at,
            })),
          )
          .execute();
      }
      const commands = Array.from({ length: COMMANDS }, (_, i) => ({
        id: newId(),
        postomatId: lockers[i % LOCKERS].id,
        orderId: null,
        type: 'OPEN_CELL',
        cellId: '1',
        state: 'DONE' as const,
        createdAt: at,
        expiresAt: at,
        sentAt: at,
        attempts: 1,
        answeredAt: at,
        error: null,
      }));
      for (let i = 0; i < commands.length; i += 200)
        await db
          .insertInto('locker_command')
          .values(commands.slice(i, i + 200))
          .execute();
    });
    after(() => cloud.stop());

    it('asks the database almost nothing while nothing happens (the polls were every 25 and 200 ms)', async () => {
      // Let start-up's first rounds finish.
      await new Promise((r) => setTimeout(r, 300));
      const before = cloud.storage.statements();
      await new Promise((r) => setTimeout(r, 2_000));
      const asked = cloud.storage.statements() - before;
      assert.ok(asked <= 6, `${asked} statements in 2 s of idling`);
    });
  });
}
