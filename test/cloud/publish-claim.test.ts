/**
 * One publisher per locker delta (cloud/sync/publish-claim.ts): of processes racing for the
 * same locker one wins; a claim left by a process that died expires and is taken again; a
 * release moves the published mark forward only.
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
    before(async () => {
      storage = await openTestStorage(dialect);
      const p = await createPostomat(
        storage.db,
        { title: 'Claimed', shortId: 'CLAIM1' },
        [{ number: 1, size: 'S', board: 0, lock: 1 }],
        new Date(),
      );
      lockerId = p.id;
    });
    after(() => storage.destroy());

    const mark = async () =>
      storage.db
        .selectFrom('locker_sync')
        .select(['version', 'publishedVersion'])
        .where('postomatId', '=', lockerId)
        .executeTakeFirstOrThrow();

    it('lets one of several racing processes publish, and none while nothing is due', async () => {
      const now = new Date();
      assert.equal(await claimPublishing(storage.db, lockerId, now), undefined, 'nothing recorded yet');
      const version = await recordCellMapChange(storage.db, lockerId);
      const claims = await Promise.all([1, 2, 3, 4].map(() => claimPublishing(storage.db, lockerId, now)));
      const won = claims.filter((c) => c !== undefined);
      assert.equal(won.length, 1);
      assert.equal(won[0]!.version, version);
      await releasePublishing(storage.db, lockerId, won[0]!, version);
      assert.equal(Number((await mark()).publishedVersion), version);
      assert.equal(await claimPublishing(storage.db, lockerId, now), undefined, 'published: nothing due');
    });

    it('takes over a claim its process left behind once it expires, and the late release changes nothing', async () => {
      const now = new Date();
      const version = await recordCellMapChange(storage.db, lockerId);
      const dead = (await claimPublishing(storage.db, lockerId, now))!;
      assert.ok(dead);
      assert.equal(
        await claimPublishing(storage.db, lockerId, new Date(now.getTime() + PUBLISH_CLAIM_MS - 1)),
        undefined,
        'still held',
      );
      const later = (await claimPublishing(storage.db, lockerId, new Date(now.getTime() + PUBLISH_CLAIM_MS + 1)))!;
      assert.ok(later, 'expired: taken over');
      await releasePublishing(storage.db, lockerId, dead);
      assert.equal(
        await claimPublishing(storage.db, lockerId, new Date(now.getTime() + PUBLISH_CLAIM_MS + 2)),
        undefined,
        "the dead claim's release left the live one alone",
      );
      await releasePublishing(storage.db, lockerId, later, version);
      await releasePublishing(storage.db, lockerId, later, version - 1);
      assert.equal(Number((await mark()).publishedVersion), version, 'the mark never moves back');
    });
  });
}
