/**
 * The extensions' rows do not grow for ever: Locker API idempotency keys go after 24 hours,
 * webhook events after the outbox's window once every delivery is finished; an event with a
 * delivery still due stays.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { eventually, startReceiver, type Receiver } from '../helpers/receiver.ts';
import { ManualClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { RetentionPruner, retentionOptions } from '../../cloud/retention/pruner.ts';
import { loadRetentionConfig } from '../../cloud/config.ts';
import { queueDeliveries } from '../../cloud/storage/webhook-event-queries.ts';

const BASE = '/api/v1/integration/company';
const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`retention of the extensions' rows (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: LockerWorld;
    let rx: Receiver;
    const clock = new ManualClock(new Date());
    before(async () => {
      rx = await startReceiver();
      cloud = await startTestCloud(dialect, { clock, env: { EVENT_POLL_MS: '50' } });
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(async () => {
      await cloud.stop();
      await rx.close();
    });

    it('prunes keys past 24 hours and finished events past the window, keeps an event with a delivery due', async () => {
      const db = cloud.storage.db;
      const sub = await cloud.request('POST', `${BASE}/webhook-subscriptions`, {
        token: w.companyB.key,
        body: { url: `${rx.url}/hook`, eventTypes: ['order.created'] },
      });
      assert.equal(sub.status, 200, sub.text);
      const create = (key: string) =>
        cloud.request('POST', `${BASE}/order/create`, {
          token: w.companyB.key,
          headers: { 'Idempotency-Key': key },
          body: { toUserPhone: '+996555123456', postomatId: w.near.id, sendMessage: false },
        });
      assert.equal((await create('old-1')).status, 200);
      assert.equal((await create('old-2')).status, 200);
      await eventually(async () =>
        assert.equal(
          (await db.selectFrom('webhook_delivery').select('id').where('state', '=', 'DELIVERED').execute()).length,
          2,
        ),
      );
      await cloud.webhookSender.stop();
      const [kept] = await db.selectFrom('webhook_event').select('eventId').orderBy('id').limit(1).execute();
      // A replay queued but not sent yet: still due.
      await queueDeliveries(db, kept.eventId, [sub.body.id], clock.now());

      clock.advance(31 * DAY);
      const pruner = new RetentionPruner(
        { db, clock, logger: silentLogger },
        retentionOptions(loadRetentionConfig({})),
      );
      const counts = await pruner.runOnce();
      assert.equal(counts.lockerIdempotencyKeys, 2);
      assert.equal(counts.webhookEvents, 1);
      assert.deepEqual(
        (await db.selectFrom('webhook_event').select('eventId').execute()).map((e) => e.eventId),
        [kept.eventId],
      );
      const deliveries = await db.selectFrom('webhook_delivery').select(['eventId', 'id']).execute();
      assert.ok(deliveries.every((d) => d.eventId === kept.eventId));
      const attempts = await db.selectFrom('webhook_attempt').select('deliveryId').execute();
      assert.ok(
        attempts.every((a) => deliveries.some((d) => d.id === a.deliveryId)),
        'no attempt of a pruned delivery left',
      );
      assert.equal((await db.selectFrom('locker_idempotency').select('key').execute()).length, 0);
    });
  });
}
