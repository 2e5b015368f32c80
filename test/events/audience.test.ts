import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { seedLockerWorld, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { orderWithAudience } from '../../cloud/storage/order-lookups.ts';
import { orderTargetAt } from '../../cloud/storage/order-queries.ts';
import { systemClock } from '../../shared/clock.ts';

for (const dialect of DIALECTS) {
  describe(`who hears of an order's change, read with the order in one statement (${dialect.name})`, () => {
    let storage: TestStorage;
    let w: LockerWorld;
    before(async () => {
      storage = await openTestStorage(dialect);
      w = await seedLockerWorld(storage.db);
    });
    after(() => storage.destroy());

    const subscribe = (id: string, ownerKind: 'LOCKER' | 'PLATFORM', companyId: string, deleted = false) =>
      storage.db
        .insertInto('webhook_subscription')
        .values({
          id,
          ownerKind,
          companyId,
          url: `https://example.test/${id}`,
          eventTypes: JSON.stringify(['order.delivered']),
          secret: 'whsec_test',
          previousSecret: null,
          previousSecretUntil: null,
          createdAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
          deletedAt: deleted ? new Date().toISOString() : null,
        })
        .execute();

    it("names the company's address, the recipient's phone, its own live subscriptions only, and whether any platform company subscribes", async () => {
      await storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: 'https://alpha.example.test/hook' })
        .where('id', '=', w.companyA.id)
        .execute();
      const order = await createOrder(
        { uow: testUow(storage), clock: systemClock },
        { companyId: w.companyA.id, postomatId: w.near.id, toUserPhone: '+996700123456', sendMessage: true },
      );
      const audienceOf = async (orderId: string) => (await orderWithAudience(storage.db, orderId))!.audience;
      const none = await audienceOf(order.id);
      assert.deepEqual(none, {
        notificationUrl: 'https://alpha.example.test/hook',
        recipientPhone: '+996700123456',
        lockerSubscriptions: [],
        anyPlatformSubscription: false,
        anyPlatformWebhook: false,
      });

      await subscribe('sub_a1', 'LOCKER', w.companyA.id);
      await subscribe('sub_a2', 'LOCKER', w.companyA.id, true);
      await subscribe('sub_b1', 'LOCKER', w.companyB.id);
      await subscribe('sub_p1', 'PLATFORM', '7');
      const some = await audienceOf(order.id);
      assert.deepEqual(some.lockerSubscriptions, [{ id: 'sub_a1', eventTypes: '["order.delivered"]' }]);
      assert.equal(some.anyPlatformSubscription, true);

      const ofB = await createOrder(
        { uow: testUow(storage), clock: systemClock },
        { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996700654321', sendMessage: true },
      );
      const other = await audienceOf(ofB.id);
      assert.deepEqual(
        other.lockerSubscriptions.map((s) => s.id),
        ['sub_b1'],
        "another company's are not named",
      );
      assert.equal(other.recipientPhone, '+996700654321');
      assert.equal(other.notificationUrl, null);
      const found = await orderWithAudience(storage.db, ofB.id);
      assert.equal(found?.order.id, ofB.id);
      assert.equal(found?.order.status, 'CREATED');
      assert.ok(!Object.keys(found!.order).some((k) => k.startsWith('audience')), 'the order row is the order alone');
      assert.equal(await orderWithAudience(storage.db, 'no-such-order'), undefined);
    });

    it("brings a creation its company's own live subscriptions with the read that admits it", async () => {
      const forA = await orderTargetAt(storage.db, w.near.id, w.companyA.id, ['123456']);
      assert.deepEqual(forA.lockerSubscriptions, [{ id: 'sub_a1', eventTypes: '["order.delivered"]' }]);
      const forB = await orderTargetAt(storage.db, w.near.id, w.companyB.id, ['123456']);
      assert.deepEqual(
        forB.lockerSubscriptions?.map((s) => s.id),
        ['sub_b1'],
        "another company's are not named",
      );
      assert.equal(
        (await orderTargetAt(storage.db, w.near.id, w.companyA.id)).lockerSubscriptions,
        undefined,
        'a redirect asks for none',
      );
    });
  });
}
