/**
 * One publisher per locker delta (cloud/sync/publish-claim.ts): of processes racing for the
 * same lockers each locker goes to one; a claim left by a process that died expires and is taken
 * again; a release moves the published marks forward only, and gives up the round's leases and
 * only them.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { recordCellMapChange } from '../../cloud/storage/locker-sync-queries.ts';
import { claimPublishing, PUBLISH_CLAIM_MS, releasePublishing } from '../../cloud/sync/publish-claim.ts';

for (const dialect of DIALECTS) {
  describe(`publishing claims (${dialect.name})`, () => {
    let storage: TestStorage;
    let lockerId: string;
    const others: string[] = [];
    before(async () => {
      storage = await openTestStorage(dialect);
      const cells = [{ number: 1, size: 'S' as const, board: 0, lock: 1 }];
      lockerId = (await createPostomat(storage.db, { title: 'Claimed', shortId: 'CLAIM1' }, cells, new Date())).id;
      for (const n of [2, 3, 4])
        others.push(
          (await createPostomat(storage.db, { title: `Claimed ${n}`, shortId: `CLAIM${n}` }, cells, new Date())).id,
        );
    });
    after(() => storage.destroy());

    const publishedVersion = async (id = lockerId) =>
      Number(
        (
          await storage.db
            .selectFrom('locker_sync')
            .select('publishedVersion')
            .where('postomatId', '=', id)
            .executeTakeFirstOrThrow()
        ).publishedVersion,
      );
    const ids = (claim: { lockers: Array<{ postomatId: string }> }) => claim.lockers.map((l) => l.postomatId).sort();

    it('lets one of several racing processes publish, and none while nothing is due', async () => {
      const now = new Date();
      assert.deepEqual(ids(await claimPublishing(storage.db, [lockerId], now)), [], 'nothing recorded yet');
      const version = await recordCellMapChange(storage.db, lockerId);
      const claims = await Promise.all([1, 2, 3, 4].map(() => claimPublishing(storage.db, [lockerId], now)));
      const won = claims.filter((c) => c.lockers.length > 0);
      assert.equal(won.length, 1);
      assert.equal(won[0]!.lockers[0]!.version, version);
      await releasePublishing(storage.db, won[0]!, [{ postomatId: lockerId, version }]);
      assert.equal(await publishedVersion(), version);
      assert.deepEqual(ids(await claimPublishing(storage.db, [lockerId], now)), [], 'published: nothing due');
    });

    it('claims a round of lockers at once; racing rounds share none; one release settles them all', async () => {
      const now = new Date();
      const versions = new Map<string, number>();
      for (const id of others) versions.set(id, await recordCellMapChange(storage.db, id));
      const [a, b] = await Promise.all([
        claimPublishing(storage.db, others, now),
        claimPublishing(storage.db, [...others].reverse(), now),
      ]);
      assert.deepEqual([...ids(a!), ...ids(b!)].sort(), [...others].sort(), 'each locker won once');
      const round = a!.lockers.length > 0 ? a! : b!;
      // Half of the round went out before the broker link failed: those move, the others wait for the next round.
      const [sent, ...unsent] = round.lockers;
      await releasePublishing(storage.db, round, [{ postomatId: sent!.postomatId, version: sent!.version }]);
      assert.equal(await publishedVersion(sent!.postomatId), versions.get(sent!.postomatId));
      for (const l of unsent) assert.equal(await publishedVersion(l.postomatId), l.publishedVersion);
      const next = await claimPublishing(storage.db, others, new Date(now.getTime() + 1));
      assert.deepEqual(
        ids(next),
        unsent.map((l) => l.postomatId).sort(),
        'the leases are free again: what did not go out is claimed by the next round',
      );
      await releasePublishing(
        storage.db,
        next,
        next.lockers.map((l) => ({ postomatId: l.postomatId, version: l.version })),
      );
      for (const id of others) assert.equal(await publishedVersion(id), versions.get(id));
    });

    it('takes over a claim its process left behind once it expires, and the late release changes nothing', async () => {
      const now = new Date();
      const version = await recordCellMapChange(storage.db, lockerId);
      const dead = await claimPublishing(storage.db, [lockerId], now);
      assert.deepEqual(ids(dead), [lockerId]);
      assert.deepEqual(
        ids(await claimPublishing(storage.db, [lockerId], new Date(now.getTime() + PUBLISH_CLAIM_MS - 1))),
        [],
        'still held',
      );
      const later = await claimPublishing(storage.db, [lockerId], new Date(now.getTime() + PUBLISH_CLAIM_MS + 1));
      assert.deepEqual(ids(later), [lockerId], 'expired: taken over');
      await releasePublishing(storage.db, dead, []);
      assert.deepEqual(
        ids(await claimPublishing(storage.db, [lockerId], new Date(now.getTime() + PUBLISH_CLAIM_MS + 2))),
        [],
        "the dead claim's release left the live one alone",
      );
      await releasePublishing(storage.db, later, [{ postomatId: lockerId, version }]);
      await releasePublishing(storage.db, later, [{ postomatId: lockerId, version: version - 1 }]);
      assert.equal(await publishedVersion(), version, 'the mark never moves back');
    });
  });
}
