/**
 * Issue 23: claims and settles in batches, several dispatchers on one database, and what a
 * receiver that hangs can hold (sockets, claims) while the others' events keep flowing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { seedLockerWorld, placeOrder, finishOrder, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { startReceiver, eventually, type Receiver } from '../helpers/receiver.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { Dispatcher, type DispatcherDeps } from '../../cloud/events/dispatcher.ts';
import { keepAlivePost } from '../../cloud/events/http-post.ts';
import { LogSmsProvider } from '../../cloud/events/sms.ts';
import { systemClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import type { Db, Storage } from '../../cloud/storage/database.ts';
import { claimQuery } from '../../cloud/storage/outbox-queries.ts';
import { FINISHED_OUTBOX } from '../../cloud/storage/retention-queries.ts';
import { CompiledQuery } from 'kysely';

/** A dispatcher that also counts how many outcomes each settle statement carried. */
class CountingDispatcher extends Dispatcher {
  readonly settles: number[] = [];
  protected override async settle(outcomes: any[], db?: Db): Promise<void> {
    this.settles.push(outcomes.length);
    return super.settle(outcomes, db);
  }
}

const dispatcher = (
  storage: Storage,
  options: DispatcherDeps['options'] = {},
  pool = keepAlivePost(Math.ceil((options.concurrency ?? 16) / 2)),
) =>
  new CountingDispatcher({
    db: storage.db,
    dialect: storage.dialect,
    clock: systemClock,
    logger: silentLogger,
    sms: new LogSmsProvider(silentLogger),
    post: pool.post,
    closePost: () => pool.destroy(),
    options: { pollMs: 20, ...options },
  });

async function completedOrders(storage: Storage, w: LockerWorld, company: LockerWorld['companyA'], n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const o = await createOrder(
      { uow: testUow(storage), clock: systemClock },
      { companyId: company.id, postomatId: w.near.id, toUserPhone: `+99655510${1000 + i}`, sendMessage: false },
    );
    await placeOrder(storage, o.id, w.near.cells[0].id, new Date());
    await finishOrder(storage, o.id, 'COMPLETED', new Date());
    ids.push(o.id);
  }
  return ids;
}

/** A receiver that never answers and counts the connections open to it. */
async function startHangingReceiver() {
  const open = new Set<import('node:net').Socket>();
  const requests: string[] = [];
  const server = http.createServer((req) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => requests.push(JSON.parse(body).orderId));
  });
  server.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    open: () => open.size,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

for (const dialect of DIALECTS) {
  describe(`batched delivery (${dialect.name})`, () => {
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

    // SQLite's plans: PostgreSQL plans by the table's statistics, which a test's few rows do not show.
    if (dialect.name === 'sqlite')
      it('a claim reads the waiting rows in creation order from their own index, and the pruner the sent ones from theirs', async () => {
        const claim = claimQuery(
          storage.db,
          dialect.name,
          { workerId: 'w', claimedUntil: new Date().toISOString(), nowIso: new Date().toISOString() },
          128,
          ['http://slow.example/n'],
        ).compile();
        const prune = storage.db
          .selectFrom('outbox_event')
          .select('id')
          .where(FINISHED_OUTBOX)
          .where('sentAt', '<', new Date().toISOString())
          .limit(500)
          .compile();
        const plan = async (q: { sql: string; parameters: readonly unknown[] }) =>
          (
            await storage.db.executeQuery<{ detail: string }>(
              CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
            )
          ).rows
            .map((r) => r.detail)
            .join(' | ');
        const claimPlan = await plan(claim);
        assert.match(claimPlan, /SCAN outbox_event USING INDEX outbox_event_due/, claimPlan);
        assert.doesNotMatch(claimPlan, /TEMP B-TREE/, `no sort of the backlog: ${claimPlan}`);
        const prunePlan = await plan(prune);
        assert.match(prunePlan, /SEARCH outbox_event USING INDEX outbox_event_sent \(sentAt<\?\)/, prunePlan);
      });

    it('one claim takes a batch; three dispatchers send 120 events exactly once, settling many outcomes per statement', async () => {
      const ids = await completedOrders(storage, w, w.companyB, 120);
      const probe = dispatcher(storage);
      const batch = await probe.claim(25);
      assert.equal(batch.length, 25, 'one claim, 25 rows');
      assert.ok(batch.every((r) => r.state === 'SENDING' && r.claimedBy === probe.workerId));
      // Handed back unsent, as a stopping dispatcher does with what it did not start.
      await (probe as any).release(batch.map((r) => r.id));
      assert.equal(
        (await storage.db.selectFrom('outbox_event').select('id').where('state', '=', 'PENDING').execute()).length,
        120,
      );

      const before = receiver.received.length;
      const all = [
        dispatcher(storage, { concurrency: 8 }),
        dispatcher(storage, { concurrency: 8 }),
        dispatcher(storage, { concurrency: 8 }),
      ];
      for (const d of all) d.start();
      await eventually(async () => {
        const left = await storage.db
          .selectFrom('outbox_event')
          .select('id')
          .where('orderId', 'in', ids)
          .where('state', '!=', 'SENT')
          .execute();
        assert.equal(left.length, 0);
      }, 30_000);
      await Promise.all(all.map((d) => d.stop()));
      const sent = receiver.received
        .slice(before)
        .map((r) => JSON.parse(r.body).orderId)
        .sort();
      assert.deepEqual(sent, [...ids].sort(), 'each event sent once');
      const rows = await storage.db.selectFrom('outbox_event').selectAll().where('orderId', 'in', ids).execute();
      for (const r of rows) {
        assert.equal(r.httpStatus, 200);
        assert.equal(typeof r.latencyMs, 'number');
        assert.ok(r.sentAt && r.sentAt >= r.createdAt);
        assert.equal(r.claimedUntil, null);
        assert.ok(all.some((d) => d.workerId === r.claimedBy));
      }
      const settles = all.flatMap((d) => d.settles);
      assert.equal(
        settles.reduce((a, b) => a + b, 0),
        120,
      );
      assert.ok(settles.length < 120 && Math.max(...settles) > 1, `outcomes per settle: ${settles.join(',')}`);
    });

    it("a hanging receiver holds at most its per-origin sends and sockets; the others' events still flow, and each of its events gets one attempt", async () => {
      const hanging = await startHangingReceiver();
      try {
        await storage.db
          .updateTable('locker_company')
          .set({ notificationUrl: `${hanging.url}/n` })
          .where('id', '=', w.companyA.id)
          .execute();
        // Its backlog is older than the others' events: a claim in creation order takes it first.
        const stuck = await completedOrders(storage, w, w.companyA, 6);
        const flowing = await completedOrders(storage, w, w.companyB, 10);
        const before = receiver.received.length;
        // 4 at a time, 2 per origin; a send that takes over 1 s (half the timeout) marks its receiver slow.
        const d = dispatcher(storage, { concurrency: 4, timeoutMs: 2_000, leaseMs: 20_000 });
        const sendingA = async () =>
          (
            await storage.db
              .selectFrom('outbox_event')
              .select('id')
              .where('orderId', 'in', stuck)
              .where('state', '=', 'SENDING')
              .execute()
          ).length;
        d.start();
        await eventually(() => assert.equal(receiver.received.length, before + 10));
        assert.equal(hanging.requests.length, 2, 'only its two sends reached it');
        assert.ok(hanging.open() <= 2, `${hanging.open()} connections`);
        // Once its sends are slow, the rows it was claimed for beyond them go back: it holds two
        // claims, not a batch, well before those two time out (a second later).
        await eventually(async () => {
          assert.equal(d.held, 2);
          assert.equal(await sendingA(), 2);
        }, 1_500);
        assert.equal(hanging.requests.length, 2, 'its other rows were not claimed again meanwhile');
        assert.ok(hanging.open() <= 2, `${hanging.open()} connections`);
        // Each of its events fails after the timeout, once.
        await eventually(async () => {
          const rows = await storage.db
            .selectFrom('outbox_event')
            .select(['state', 'error'])
            .where('orderId', 'in', stuck)
            .execute();
          assert.ok(
            rows.every((r) => r.state === 'FAILED' && /no answer within/.test(r.error ?? '')),
            JSON.stringify(rows),
          );
        }, 15_000);
        await d.stop();
        assert.deepEqual([...hanging.requests].sort(), [...stuck].sort(), 'one attempt each');
        assert.ok(hanging.open() <= 2);
        const sentB = await storage.db
          .selectFrom('outbox_event')
          .select('state')
          .where('orderId', 'in', flowing)
          .execute();
        assert.ok(sentB.every((r) => r.state === 'SENT'));
      } finally {
        await hanging.close();
      }
    });
  });
}
