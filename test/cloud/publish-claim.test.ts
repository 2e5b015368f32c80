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
import { claimPublishing, PUBLISH_CLAIM_MS, PublishLeases, releasePublishing } from '../../cloud/sync/publish-claim.ts';
import { createUnitOfWork } from '../../cloud/consequences.ts';
import { SyncPublisher } from '../../cloud/sync/publisher.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { systemClock } from '../../shared/clock.ts';

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

    const leaseOf = async (id: string) =>
      (
        await storage.db
          .selectFrom('locker_sync')
          .select('publishClaimedUntil')
          .where('postomatId', '=', id)
          .executeTakeFirstOrThrow()
      ).publishClaimedUntil;

    it("takes a locker's lease in the transaction of a publishing process's change, publishes with no claim, and writes back later", async () => {
      const leases = new PublishLeases(systemClock);
      const sent: string[] = [];
      const publisher = new SyncPublisher(
        {
          db: storage.db,
          clock: systemClock,
          logger: silentLogger,
          connected: () => true,
          publish: async (topic) => (sent.push(topic), true),
          leases,
        },
        { pollMs: 60_000, commandResendMs: 60_000 },
      );
      const uow = createUnitOfWork(storage.db, undefined, leases);
      const change = (id: string, order: string) => uow.run((tx) => tx.after.lockerChanged(id, order));
      try {
        await change(lockerId, 'order-outside');
        assert.equal(await leaseOf(lockerId), null, 'a publisher that is not running takes no lease');
        publisher.start();
        await publisher.tick();
        await publisher.flush();
        const [one, two] = others;
        const before = [await publishedVersion(one), await publishedVersion(two)];
        await change(one!, 'order-a');
        await change(two!, 'order-b');
        const lease = await leaseOf(one!);
        assert.ok(lease?.endsWith(`#${leases.mark}`), `the change took the lease: ${lease}`);
        assert.ok((await leaseOf(two!))?.endsWith(`#${leases.mark}`), 'and the other change its own');
        assert.deepEqual(
          ids(await claimPublishing(storage.db, [one!, two!], new Date())),
          [],
          'held for its publisher',
        );
        sent.length = 0;
        await publisher.tick();
        assert.deepEqual(sent.sort(), [`lockers/${one}/sync`, `lockers/${two}/sync`].sort());
        assert.deepEqual(
          [await publishedVersion(one), await publishedVersion(two)],
          before,
          'the marks wait to be written together',
        );
        await publisher.tick();
        assert.equal(sent.length, 2, 'what went out is not sent again meanwhile');
        await publisher.flush();
        assert.deepEqual(
          [await publishedVersion(one), await publishedVersion(two)],
          before.map((v) => v + 1),
        );
        assert.deepEqual([await leaseOf(one!), await leaseOf(two!)], [null, null], 'the leases given up');
      } finally {
        await publisher.stop();
      }
    });

    it('leaves a lease another process holds alone, and publishes the locker once that lease is given up', async () => {
      const leases = new PublishLeases(systemClock);
      leases.active = () => true;
      const [, , three] = others;
      const theirs = await claimPublishing(storage.db, [three!], new Date());
      assert.deepEqual(ids(theirs), [], 'nothing due yet');
      await recordCellMapChange(storage.db, three!);
      const held = await claimPublishing(storage.db, [three!], new Date());
      assert.deepEqual(ids(held), [three]);
      await createUnitOfWork(storage.db, undefined, leases).run((tx) => tx.after.lockerChanged(three!, 'order-c'));
      assert.equal(await leaseOf(three!), held.until, "the other process's lease is kept");
      const sent: string[] = [];
      const publisher = new SyncPublisher(
        {
          db: storage.db,
          clock: systemClock,
          logger: silentLogger,
          connected: () => true,
          publish: async (topic) => (sent.push(topic), true),
          leases,
        },
        { pollMs: 60_000, commandResendMs: 60_000 },
      );
      try {
        await publisher.tick();
        assert.deepEqual(sent, [], 'held by the other process');
        await releasePublishing(storage.db, held, []);
        await publisher.tick();
        assert.deepEqual(sent, [`lockers/${three}/sync`]);
        await publisher.flush();
        assert.equal(await leaseOf(three!), null);
      } finally {
        await publisher.stop();
      }
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
