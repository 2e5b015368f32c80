/**
 * Sync out, on storage: every change to a locker's orders is recorded with a version in the
 * transaction that makes it, and deltas and snapshots are built from those records (no MQTT).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { markPaid, transitionOrder } from '../../cloud/services/order-transitions.ts';
import { lockerVersion, recordLockerChange } from '../../cloud/storage/locker-sync-queries.ts';
import { commandsDue } from '../../cloud/sync/commands.ts';
import { COMMAND_TTL_MS, queueOpenCell } from '../../cloud/services/staff-commands.ts';
import { testUow } from '../helpers/locker-world.ts';
import { SyncPublisher } from '../../cloud/sync/publisher.ts';
import { deltaSync, fullSync, syncForAnnouncement } from '../../cloud/sync/sync-out.ts';
import type { SyncMessage } from '../../shared/mqtt/index.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { CELLS } from './harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] sync out on storage`, () => {
    let storage: TestStorage;
    const clock = new ManualClock('2026-04-01T10:00:00.000Z');
    let companyId: string;
    const newLocker = async () =>
      (
        await createPostomat(
          storage.db,
          { title: 'L', shortId: `V${Math.random().toString(36).slice(2, 8)}` },
          CELLS,
          new Date(),
        )
      ).id;
    const newOrder = (postomatId: string, pay = false) =>
      createOrder(
        { uow: testUow(storage), clock },
        { companyId, postomatId, toUserPhone: '+996555000222', sendMessage: false, pay },
      );
    const step = (orderId: string, to: 'DELIVERED' | 'COMPLETED' | 'SUBTRACTED', cellId?: string) =>
      testUow(storage).run((tx) => transitionOrder(tx, { orderId, to, at: clock.now(), cellId }));

    before(async () => {
      storage = await openTestStorage(dialect);
      companyId = (
        await createLockerCompany(storage.db, { title: 'C', orderPrice: 5_000, balance: 1_000_000 }, new Date())
      ).id;
    });
    after(() => storage.destroy());

    it('creation, payment and each status change bump the version in their own transaction', async () => {
      const locker = await newLocker();
      const o = await newOrder(locker);
      assert.equal((await lockerVersion(storage.db, locker)).version, 1);
      await testUow(storage).run((tx) => markPaid(tx, o.id, clock.now()));
      assert.equal((await lockerVersion(storage.db, locker)).version, 2);
      const cell = await storage.db
        .selectFrom('cell')
        .select(['id', 'number'])
        .where('postomatId', '=', locker)
        .where('number', '=', 2)
        .executeTakeFirstOrThrow();
      await step(o.id, 'DELIVERED', cell.id);
      assert.equal((await lockerVersion(storage.db, locker)).version, 3);
      // A failed change leaves no trace: the version is part of the transaction.
      await assert.rejects(step(o.id, 'DELIVERED', cell.id));
      assert.equal((await lockerVersion(storage.db, locker)).version, 3);
    });

    it('a delta carries codes, what is unpaid and the cell number; a finished order becomes a removal', async () => {
      const locker = await newLocker();
      const unpaid = await newOrder(locker);
      const placed = await newOrder(locker, true);
      const cell = await storage.db
        .selectFrom('cell')
        .select('id')
        .where('postomatId', '=', locker)
        .where('number', '=', 3)
        .executeTakeFirstOrThrow();
      await step(placed.id, 'DELIVERED', cell.id);
      const d1 = await deltaSync(storage.db, locker, 0, 3);
      assert.deepEqual([d1.version, d1.full, d1.since], [3, false, 0]);
      const byId = new Map(d1.upserts.map((u) => [u.orderId, u]));
      assert.equal(byId.get(unpaid.id)?.notPaidAmount, 5_000);
      assert.equal(byId.get(unpaid.id)?.status, 'CREATED');
      assert.match(byId.get(unpaid.id)!.codes.DOWN, /^\d{4}$/);
      assert.deepEqual(
        [byId.get(placed.id)?.status, byId.get(placed.id)?.cellId, byId.get(placed.id)?.notPaidAmount],
        ['DELIVERED', '3', 0],
      );

      await step(placed.id, 'COMPLETED');
      const d2 = await deltaSync(storage.db, locker, 3, 4);
      assert.deepEqual([d2.upserts, d2.removals], [[], [placed.id]]);
      const full = await fullSync(storage.db, locker, 4);
      assert.deepEqual(
        full.upserts.map((u) => u.orderId),
        [unpaid.id],
      );
      assert.deepEqual(full.removals, []);
    });

    it('an order moved to another locker leaves the first and arrives at the second', async () => {
      const [from, to] = [await newLocker(), await newLocker()];
      const o = await newOrder(from);
      // What a redirect does: move the order, record the change at both lockers.
      await storage.db.transaction().execute(async (trx) => {
        await trx.updateTable('locker_order').set({ postomatId: to }).where('id', '=', o.id).execute();
        await recordLockerChange(trx, from, o.id);
        await recordLockerChange(trx, to, o.id);
      });
      assert.deepEqual((await deltaSync(storage.db, from, 1, 2)).removals, [o.id]);
      assert.deepEqual(
        (await deltaSync(storage.db, to, 0, 1)).upserts.map((u) => u.orderId),
        [o.id],
      );
    });

    it('answers an announcement with nothing, a delta, or a full snapshot', async () => {
      const locker = await newLocker();
      await newOrder(locker);
      await newOrder(locker);
      assert.equal(await syncForAnnouncement(storage.db, locker, 2), undefined);
      const delta = await syncForAnnouncement(storage.db, locker, 1);
      assert.deepEqual([delta?.full, delta?.since, delta?.upserts.length], [false, 1, 1]);
      const full = await syncForAnnouncement(storage.db, locker, 0);
      assert.deepEqual([full?.full, full?.version, full?.upserts.length], [true, 2, 2]);
    });

    it('concurrent creations at one locker get distinct versions', async () => {
      const locker = await newLocker();
      const orders = await Promise.all(Array.from({ length: 6 }, () => newOrder(locker)));
      const rows = await storage.db
        .selectFrom('locker_sync_change')
        .select(['orderId', 'version'])
        .where('postomatId', '=', locker)
        .execute();
      assert.deepEqual(
        rows.map((r) => Number(r.version)).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6],
      );
      assert.equal(rows.length, orders.length);
    });

    it('a staff command expires unsent after its time, and is never sent then', async () => {
      const locker = await newLocker();
      const o = await newOrder(locker, true);
      const cell = await storage.db
        .selectFrom('cell')
        .select('id')
        .where('postomatId', '=', locker)
        .where('number', '=', 1)
        .executeTakeFirstOrThrow();
      await step(o.id, 'DELIVERED', cell.id);
      const { command, created } = await testUow(storage).run((tx) =>
        queueOpenCell(tx, { ...o, cellId: cell.id }, clock.now()),
      );
      assert.deepEqual([created, command.cellId, command.state], [true, '1', 'PENDING']);
      const again = await testUow(storage).run((tx) => queueOpenCell(tx, { ...o, cellId: cell.id }, clock.now()));
      assert.deepEqual([again.created, again.command.id], [false, command.id]);
      assert.deepEqual(
        (await commandsDue(storage.db, clock.now(), 10_000, locker)).map((c) => c.id),
        [command.id],
      );
      const later = new Date(clock.now().getTime() + COMMAND_TTL_MS + 1);
      assert.deepEqual(await commandsDue(storage.db, later, 10_000, locker), []);
      const row = await storage.db
        .selectFrom('locker_command')
        .select('state')
        .where('id', '=', command.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.state, 'EXPIRED');
    });

    it('the publisher sends each change once as a delta after what it published before', async () => {
      const sent: Array<{ topic: string; body: SyncMessage }> = [];
      const publisher = new SyncPublisher(
        {
          db: storage.db,
          clock,
          logger: silentLogger,
          connected: () => true,
          publish: async (topic, body) => (sent.push({ topic, body: body as SyncMessage }), true),
        },
        { pollMs: 1000, commandResendMs: 1000 },
      );
      await publisher.tick(); // what earlier tests left unpublished
      const locker = await newLocker();
      const o = await newOrder(locker);
      sent.length = 0;
      await publisher.tick();
      assert.deepEqual(
        sent.map((s) => [s.topic, s.body.since, s.body.version]),
        [[`lockers/${locker}/sync`, 0, 1]],
      );
      assert.deepEqual(
        sent[0].body.upserts.map((u) => u.orderId),
        [o.id],
      );
      await publisher.tick();
      assert.equal(sent.length, 1, 'nothing new, nothing sent');
      await testUow(storage).run((tx) => markPaid(tx, o.id, clock.now()));
      await publisher.tick();
      assert.deepEqual([sent[1].body.since, sent[1].body.version, sent[1].body.upserts[0].notPaidAmount], [1, 2, 0]);
      await publisher.tick();
      assert.equal(sent.length, 2, 'what went out is remembered until it is written back');
      await publisher.flush();
      assert.equal((await lockerVersion(storage.db, locker)).publishedVersion, 2);
      const lease = await storage.db
        .selectFrom('locker_sync')
        .select('publishClaimedUntil')
        .where('postomatId', '=', locker)
        .executeTakeFirstOrThrow();
      assert.equal(lease.publishClaimedUntil, null, 'the lease given up with the mark');
      await publisher.stop();
    });
  });
}
