/**
 * What applying a locker's event reads before it decides (cloud/storage/locker-event-facts.ts),
 * one statement when the order exists: whether the event is on record, whether attempts at it
 * are counted, its order and the cell named. And through ingestEvent: a pickup that had to wait
 * for its placement has its counted attempts cleared when it applies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../cloud/logger.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { lockerEventFacts } from '../../cloud/storage/locker-event-facts.ts';
import { ingestEvent } from '../../cloud/sync/ingest.ts';
import { CONTRACT_VERSION, type LockerEvent } from '../../shared/mqtt/index.ts';
import { seedLockerWorld, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] a locker event's facts`, () => {
    let storage: TestStorage;
    let w: LockerWorld;
    let seq = 0;
    const clock = { now: () => new Date() };
    const deps = () => ({ db: storage.db, uow: testUow(storage), clock, logger: silentLogger });
    const newOrder = () =>
      createOrder(
        { uow: testUow(storage), clock },
        { companyId: w.companyA.id, postomatId: w.near.id, toUserPhone: '+996555000111', sendMessage: false },
      );
    const event = (type: LockerEvent['type'], orderId: string, extra: Partial<LockerEvent> = {}): LockerEvent => ({
      v: CONTRACT_VERSION,
      eventId: `facts-${++seq}-${Math.random().toString(36).slice(2, 8)}`,
      seq,
      type,
      orderId,
      at: new Date().toISOString(),
      ...extra,
    });
    const cellOne = async () =>
      (
        await storage.db
          .selectFrom('cell')
          .select('id')
          .where('postomatId', '=', w.near.id)
          .where('number', '=', 1)
          .executeTakeFirstOrThrow()
      ).id;
    const attemptsOf = (eventId: string) =>
      storage.db.selectFrom('locker_event_attempt').select('attempts').where('eventId', '=', eventId).execute();

    before(async () => {
      storage = await openTestStorage(dialect);
      w = await seedLockerWorld(storage.db);
    });
    after(() => storage.destroy());

    it('reads a new placement: not on record, no attempts, its order and the cell named', async () => {
      const order = await newOrder();
      const e = event('PLACED', order.id, { cellId: '1' });
      const facts = await lockerEventFacts(storage.db, w.near.id, e.eventId, order.id, 1);
      assert.equal(facts.seen, undefined);
      assert.equal(facts.attempted, false);
      assert.equal(facts.order?.id, order.id);
      assert.equal(facts.order?.status, 'CREATED');
      assert.equal(facts.order?.postomatId, w.near.id);
      assert.equal(facts.cellId, await cellOne());
      assert.equal((await lockerEventFacts(storage.db, w.near.id, e.eventId, order.id, 99)).cellId, undefined);

      assert.equal(await ingestEvent(deps(), w.near.id, e), 'ack');
      const again = await lockerEventFacts(storage.db, w.near.id, e.eventId, order.id, 1);
      assert.equal(again.seen, 'APPLIED', 'a copy of the event finds it on record');
      assert.equal(again.order?.status, 'DELIVERED');
      assert.ok(again.order?.statusAt, 'the time of its current status');
    });

    it('reads an event whose order does not exist: no order, and the rest all the same', async () => {
      const e = event('PLACED', 'no-such-order', { cellId: '1' });
      const facts = await lockerEventFacts(storage.db, w.near.id, e.eventId, 'no-such-order', 1);
      assert.deepEqual(facts, { seen: undefined, attempted: false, order: undefined, cellId: await cellOne() });
      assert.equal(await ingestEvent(deps(), w.near.id, e), 'ack');
      assert.equal(
        (await lockerEventFacts(storage.db, w.near.id, e.eventId, 'no-such-order', 1)).seen,
        'REJECTED',
        'refused, and on record as such',
      );
    });

    it('clears the counted attempts of a pickup that waited for its placement, once it applies', async () => {
      const order = await newOrder();
      const pickup = event('PICKED_UP', order.id);
      assert.equal(await ingestEvent(deps(), w.near.id, pickup), 'wait', 'the placement has not come yet');
      assert.deepEqual(await attemptsOf(pickup.eventId), [{ attempts: 1 }]);
      assert.equal(
        (await lockerEventFacts(storage.db, w.near.id, pickup.eventId, order.id, undefined)).attempted,
        true,
      );

      assert.equal(await ingestEvent(deps(), w.near.id, event('PLACED', order.id, { cellId: '2' })), 'ack');
      assert.equal(await ingestEvent(deps(), w.near.id, pickup), 'ack');
      assert.deepEqual(await attemptsOf(pickup.eventId), [], 'cleared with the recording');
      const facts = await lockerEventFacts(storage.db, w.near.id, pickup.eventId, order.id, undefined);
      assert.equal(facts.seen, 'APPLIED');
      assert.equal(facts.attempted, false);
      assert.equal(facts.order?.status, 'COMPLETED');
    });
  });
}
