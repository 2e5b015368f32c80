import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { seedLockerWorld, placeOrder, finishOrder, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { startReceiver, eventually, type Receiver } from '../helpers/receiver.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { Dispatcher } from '../../cloud/events/dispatcher.ts';
import { LogSmsProvider } from '../../cloud/events/sms.ts';
import { ManualClock, systemClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import type { Storage } from '../../cloud/storage/database.ts';

const dispatcher = (storage: Storage, clock = systemClock, options = {}) =>
  new Dispatcher({
    db: storage.db,
    dialect: storage.dialect,
    clock,
    logger: silentLogger,
    sms: new LogSmsProvider(silentLogger),
    options: { pollMs: 20, ...options },
  });

async function completedOrders(storage: Storage, w: LockerWorld, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const o = await createOrder(
      { uow: testUow(storage), clock: systemClock },
      { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: `+99655500${1000 + i}`, sendMessage: false },
    );
    await placeOrder(storage, o.id, w.near.cells[0].id, new Date());
    await finishOrder(storage, o.id, 'COMPLETED', new Date());
    ids.push(o.id);
  }
  return ids;
}

for (const dialect of DIALECTS) {
  describe(`outbox recovery (${dialect.name})`, () => {
    let storage: TestStorage;
    let w: LockerWorld;
    let receiver: Receiver;
    before(async () => {
      storage = await openTestStorage(dialect);
      w = await seedLockerWorld(storage.db);
      receiver = await startReceiver();
      await storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${receiver.url}/n` })
        .where('id', '=', w.companyB.id)
        .execute();
    });
    after(async () => {
      await storage.destroy();
      await receiver.close();
    });

    it('events committed while no dispatcher ran are sent when one starts', async () => {
      const [id] = await completedOrders(storage, w, 1);
      const before = receiver.received.length;
      const d = dispatcher(storage);
      d.start();
      await eventually(() => assert.equal(receiver.received.length, before + 1));
      await d.stop();
      assert.equal(JSON.parse(receiver.received.at(-1)!.body).orderId, id);
    });

    it('a dispatcher killed between claim and send: the event is sent after its lease runs out', async () => {
      const clock = new ManualClock(new Date());
      const [id] = await completedOrders(storage, w, 1);
      const dead = dispatcher(storage, clock, { leaseMs: 60_000 });
      const claimed = await dead.claim(10); // claims, then "dies" without sending
      assert.deepEqual(
        claimed.map((r) => r.orderId),
        [id],
      );
      const before = receiver.received.length;
      const heir = dispatcher(storage, clock, { leaseMs: 60_000 });
      assert.equal((await heir.claim(10)).length, 0, 'a live lease is respected');
      clock.advance(60_001);
      heir.start();
      await eventually(() => assert.equal(receiver.received.length, before + 1));
      await heir.stop();
      const row = await storage.db
        .selectFrom('outbox_event')
        .selectAll()
        .where('orderId', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.state, 'SENT');
      assert.equal(row.claimedBy, heir.workerId);
    });

    it('two dispatchers on one database send each event exactly once', async () => {
      const ids = await completedOrders(storage, w, 30);
      const before = receiver.received.length;
      const a = dispatcher(storage, systemClock, { concurrency: 4 });
      const b = dispatcher(storage, systemClock, { concurrency: 4 });
      a.start();
      b.start();
      await eventually(() => assert.equal(receiver.received.length, before + 30));
      await new Promise((r) => setTimeout(r, 200));
      await Promise.all([a.stop(), b.stop()]);
      const sent = receiver.received
        .slice(before)
        .map((r) => JSON.parse(r.body).orderId)
        .sort();
      assert.deepEqual(sent, [...ids].sort());
      const byWorker = await storage.db
        .selectFrom('outbox_event')
        .select(['claimedBy'])
        .where('orderId', 'in', ids)
        .execute();
      assert.equal(byWorker.length, 30);
      assert.ok(byWorker.every((r) => r.claimedBy === a.workerId || r.claimedBy === b.workerId));
    });
  });
}

describe('operator delivery log', () => {
  it('shows event, target, outcome, latency and time, never payloads or keys, with masked phones', async () => {
    const { runOperator } = await import('../../cloud/operator/cli.ts');
    const storage = await openTestStorage(DIALECTS[0]);
    try {
      const w = await seedLockerWorld(storage.db);
      const receiver = await startReceiver({ status: 503 });
      await storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${receiver.url}/n` })
        .where('id', '=', w.companyB.id)
        .execute();
      const o = await createOrder(
        { uow: testUow(storage), clock: systemClock },
        { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996555987654', sendMessage: true },
      );
      await placeOrder(storage, o.id, w.near.cells[0].id, new Date());
      await finishOrder(storage, o.id, 'COMPLETED', new Date());
      const d = dispatcher(storage);
      d.start();
      await eventually(async () =>
        assert.equal(
          (await storage.db.selectFrom('outbox_event').select('id').where('state', 'in', ['SENT', 'FAILED']).execute())
            .length,
          2,
        ),
      );
      await d.stop();
      await receiver.close();
      const up = (
        await storage.db
          .selectFrom('order_code')
          .select('password')
          .where('orderId', '=', o.id)
          .where('type', '=', 'UP')
          .executeTakeFirstOrThrow()
      ).password;
      const json = await runOperator(['events', 'list', '--order', o.id, '--json'], {}, storage);
      assert.equal(json.code, 0, json.stderr);
      const rows = JSON.parse(json.stdout);
      assert.deepEqual(rows.map((r: any) => [r.kind, r.event, r.state, r.httpStatus]).sort(), [
        ['COMPANY_NOTIFICATION', 'COMPLETED', 'SENT', 503],
        ['SMS', 'PICKUP_CODE', 'SENT', 200],
      ]);
      assert.equal(rows.find((r: any) => r.kind === 'SMS').target, '+9965*****654');
      for (const r of rows) assert.equal(typeof r.latencyMs, 'number');
      const text = await runOperator(['events', 'list', '--order', o.id], {}, storage);
      assert.match(text.stdout, /HTTP 503/);
      for (const out of [json.stdout, text.stdout]) {
        assert.ok(!out.includes('payload') && !out.includes('secretHeader'));
        assert.ok(!out.includes(up), 'no pickup code');
      }
      const bad = await runOperator(['events', 'list', '--state', 'LOST'], {}, storage);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--state must be one of/);
    } finally {
      await storage.destroy();
    }
  });
});
