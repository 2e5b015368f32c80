/**
 * The unit of work: an operation's rows and the rows of its consequences commit together, and
 * the wake-ups run after the commit, in this process and in every other one on the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { createUnitOfWork } from '../../cloud/consequences.ts';
import { createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { createIn, createOrder } from '../../cloud/services/create-order.ts';
import type { ChangeSummary } from '../../cloud/storage/change-feed.ts';
import { openStorage, type Storage } from '../../cloud/storage/database.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { until } from '../sync/harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] unit of work`, () => {
    let storage: TestStorage;
    /** another process on the same database, as far as the database can tell */
    let other: Storage;
    let companyId: string;
    let postomatId: string;
    const clock = new ManualClock('2026-05-01T10:00:00.000Z');
    const input = () => ({ companyId, postomatId, toUserPhone: '+996555000333', sendMessage: false });

    before(async () => {
      storage = await openTestStorage(dialect);
      other = await openStorage(storage.databaseUrl);
      companyId = (await createLockerCompany(storage.db, { title: 'UoW Co' }, clock.now())).id;
      postomatId = (
        await createPostomat(
          storage.db,
          { title: 'UoW locker', shortId: `U${Math.random().toString(36).slice(2, 8)}` },
          [{ number: 1, size: 'M', board: 0, lock: 1 }],
          clock.now(),
        )
      ).id;
    });
    after(async () => {
      await other.close();
      await storage.destroy();
    });

    it('wakes this process only after the commit: what a listener reads from another connection is there', async () => {
      const seen: Array<Promise<boolean>> = [];
      const stop = storage.changes.onChange((change) => {
        assert.deepEqual(change.lockers, [postomatId]);
        // Read through another connection: it sees only committed rows.
        seen.push(
          other.db
            .selectFrom('locker_sync_change')
            .select('orderId')
            .where('postomatId', '=', postomatId)
            .execute()
            .then((rows) => rows.length > 0),
        );
      });
      try {
        const order = await createOrder({ uow: createUnitOfWork(storage.db, storage.changes), clock }, input());
        assert.ok(order.id);
        assert.equal(seen.length, 1, 'one wake-up for one commit');
        assert.equal(await seen[0], true, 'the change was committed before the wake-up');
      } finally {
        stop();
      }
    });

    it('a unit that rolls back writes nothing and wakes nobody, here or in another process', async () => {
      const heard: ChangeSummary[] = [];
      const stopHere = storage.changes.onChange((c) => heard.push(c));
      const stopThere = other.changes.onChange((c) => heard.push(c));
      await other.changes.listen(() => {});
      const uow = createUnitOfWork(storage.db, storage.changes);
      const before = await storage.db.selectFrom('locker_order').select('id').execute();
      try {
        await assert.rejects(
          uow.run(async (tx) => {
            await createIn(tx, { clock }, input());
            throw new Error('crash before commit');
          }),
          /crash before commit/,
        );
        // Give a stray notification time to arrive (on SQLite the commit watcher looks every 200 ms).
        await new Promise((r) => setTimeout(r, 600));
        assert.deepEqual(heard, []);
        assert.equal((await storage.db.selectFrom('locker_order').select('id').execute()).length, before.length);
      } finally {
        stopHere();
        stopThere();
      }
    });

    it('another process hears a commit once, with what it changed, and its author does not hear its own commit twice', async () => {
      const there: ChangeSummary[] = [];
      const here: ChangeSummary[] = [];
      await other.changes.listen(() => {});
      await storage.changes.listen(() => {});
      const stopThere = other.changes.onChange((c) => there.push(c));
      const stopHere = storage.changes.onChange((c) => here.push(c));
      try {
        await createOrder({ uow: createUnitOfWork(storage.db, storage.changes), clock }, input());
        const heard = await until('the other process hears the commit', () => there[0]);
        assert.deepEqual(heard, { lockers: [postomatId], outbox: false, credentials: false, commands: false });
        await new Promise((r) => setTimeout(r, 600));
        assert.equal(there.length, 1);
        assert.equal(here.length, 1, 'its own NOTIFY coming back is not a second wake-up');
      } finally {
        stopThere();
        stopHere();
      }
    });

    it('says when a change queued a staff command, here and in another process (order changes do not)', async () => {
      const there: ChangeSummary[] = [];
      const here: ChangeSummary[] = [];
      await other.changes.listen(() => {});
      const stopThere = other.changes.onChange((c) => there.push(c));
      const stopHere = storage.changes.onChange((c) => here.push(c));
      try {
        await createUnitOfWork(storage.db, storage.changes).run(async (tx) => tx.after.commandQueued(postomatId));
        const heard = await until('the other process hears the command', () => there[0]);
        const expected = { lockers: [postomatId], outbox: false, credentials: false, commands: true };
        assert.deepEqual(heard, expected);
        assert.deepEqual(here, [expected]);
      } finally {
        stopThere();
        stopHere();
      }
    });
  });
}
