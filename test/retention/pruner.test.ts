/**
 * The retention pruner on storage, with a ManualClock: finished rows past their window go in
 * batches of at most RETENTION_BATCH rows per statement; work in progress and recent rows stay;
 * sync changes of orders a locker no longer holds go once published and old, with the floor
 * raised in the same transaction, so an agent behind it gets a full snapshot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { createLogger, silentLogger } from '../../cloud/logger.ts';
import {
  RetentionPruner,
  retentionOptions,
  startRetention,
  type RetentionOptions,
} from '../../cloud/retention/pruner.ts';
import { loadRetentionConfig } from '../../cloud/config.ts';
import { createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { openStorage, type Db } from '../../cloud/storage/database.ts';
import { newId } from '../../cloud/storage/ids.ts';
import { fullSync, syncForAnnouncement } from '../../cloud/sync/sync-out.ts';
import { lockerVersion } from '../../cloud/storage/locker-sync-queries.ts';
import type { SyncMessage } from '../../shared/mqtt/index.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { CELLS } from '../sync/harness.ts';
import { countingDb, deletesOn } from './statements.ts';
import { orderOps } from './orders.ts';

const DAY = 86_400_000;
const options = (o: Partial<RetentionOptions> = {}): RetentionOptions => ({
  ...retentionOptions(loadRetentionConfig({})),
  intervalMs: 0,
  ...o,
});
const count = async (
  db: Db,
  table: 'outbox_event' | 'locker_event' | 'locker_command' | 'locker_sync_change' | 'locker_sync_checkpoint',
) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** What an agent holding `held` at some version ends up holding after `msg` (store.ts applySync, without the status rank). */
function apply(held: Set<string>, msg: SyncMessage): Set<string> {
  const next = msg.full ? new Set<string>() : new Set(held);
  for (const id of msg.removals) next.delete(id);
  for (const u of msg.upserts) next.add(u.orderId);
  return next;
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] retention: finished rows past their window`, () => {
    let storage: TestStorage;
    const clock = new ManualClock('2026-05-01T00:00:00.000Z');
    const ago = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();
    before(async () => {
      storage = await openTestStorage(dialect);
    });
    after(() => storage.destroy());

    const outbox = (state: string, at: string) => ({
      id: newId(),
      kind: 'WEBHOOK' as const,
      event: 'DELIVERED_TO_POSTOMAT',
      orderId: null,
      target: 'http://127.0.0.1:9/h',
      payload: '{}',
      secretHeader: null,
      state: state as any,
      claimedBy: null,
      claimedUntil: null,
      httpStatus: null,
      error: null,
      latencyMs: null,
      createdAt: at,
      sentAt: state === 'PENDING' || state === 'SENDING' ? null : at,
    });
    const lockerEvent = (at: string, outcome: 'APPLIED' | 'STORED' | 'REJECTED') => ({
      postomatId: 'locker-x',
      eventId: newId(),
      seq: 1,
      type: 'CODE_REJECTED',
      orderId: null,
      cellId: null,
      detail: null,
      at,
      receivedAt: at,
      outcome,
      note: null,
    });
    const command = (state: string, at: string) => ({
      id: newId(),
      postomatId: 'locker-x',
      orderId: null,
      type: 'OPEN_CELL',
      cellId: '1',
      state: state as any,
      createdAt: at,
      expiresAt: at,
      sentAt: null,
      attempts: 0,
      answeredAt: null,
      error: null,
    });

    it('deletes old finished rows in batches of at most RETENTION_BATCH, keeps pending, open and recent ones, and logs one line per run', async () => {
      const { db } = storage;
      const old = ago(40 * DAY);
      const recent = ago(DAY);
      const finished = ['SENT', 'FAILED', 'SKIPPED', 'SENT', 'FAILED', 'SKIPPED', 'SENT'];
      await db
        .insertInto('outbox_event')
        .values([
          ...finished.map((s) => outbox(s, old)),
          outbox('PENDING', old),
          outbox('SENDING', old),
          outbox('SENT', recent),
          outbox('FAILED', recent),
        ])
        .execute();
      const outcomes = ['APPLIED', 'STORED', 'REJECTED', 'APPLIED', 'STORED', 'REJECTED', 'APPLIED'] as const;
      await db
        .insertInto('locker_event')
        .values([
          ...outcomes.map((o) => lockerEvent(old, o)),
          lockerEvent(recent, 'APPLIED'),
          lockerEvent(recent, 'REJECTED'),
        ])
        .execute();
      const answered = ['DONE', 'FAILED', 'EXPIRED', 'DONE', 'FAILED', 'EXPIRED', 'DONE'];
      await db
        .insertInto('locker_command')
        .values([
          ...answered.map((s) => command(s, old)),
          command('PENDING', old),
          command('SENT', old),
          command('DONE', recent),
          command('EXPIRED', recent),
        ])
        .execute();

      const counted = countingDb(db);
      const lines: any[] = [];
      const logger = createLogger({ write: (l) => lines.push(JSON.parse(l)) });
      const pruner = new RetentionPruner({ db: counted.db, clock, logger }, options({ batch: 3 }));
      const counts = await pruner.runOnce();
      assert.deepEqual(counts, {
        outboxEvents: 7,
        lockerEvents: 7,
        commands: 7,
        idempotencyKeys: 0,
        lockerIdempotencyKeys: 0,
        webhookEvents: 0,
        eventAttempts: 0,
        resolvedAlarms: 0,
        syncChanges: 0,
        floorsRaised: 0,
      });

      for (const table of ['outbox_event', 'locker_event', 'locker_command']) {
        const deletes = deletesOn(counted.statements, table);
        assert.deepEqual(
          deletes.map((d) => d.rows),
          [3, 3, 1],
          `${table}: three statements of at most 3 rows`,
        );
      }
      const left = await db.selectFrom('outbox_event').select(['state', 'createdAt']).orderBy('state').execute();
      assert.deepEqual(
        left.map((r) => `${r.state}@${r.createdAt === old ? 'old' : 'recent'}`),
        ['FAILED@recent', 'PENDING@old', 'SENDING@old', 'SENT@recent'],
      );
      assert.deepEqual(
        (await db.selectFrom('locker_event').select('receivedAt').execute()).map((r) => r.receivedAt),
        [recent, recent],
      );
      const commands = await db.selectFrom('locker_command').select(['state', 'createdAt']).orderBy('state').execute();
      assert.deepEqual(
        commands.map((r) => `${r.state}@${r.createdAt === old ? 'old' : 'recent'}`),
        ['DONE@recent', 'EXPIRED@recent', 'PENDING@old', 'SENT@old'],
      );

      assert.deepEqual(
        lines.map((l) => [l.level, l.msg, l.outboxEvents, l.lockerEvents, l.commands]),
        [['info', 'retention: pruned finished rows', 7, 7, 7]],
      );
      assert.deepEqual(await pruner.runOnce(), {
        outboxEvents: 0,
        lockerEvents: 0,
        commands: 0,
        idempotencyKeys: 0,
        lockerIdempotencyKeys: 0,
        webhookEvents: 0,
        eventAttempts: 0,
        resolvedAlarms: 0,
        syncChanges: 0,
        floorsRaised: 0,
      });
      assert.equal(lines.length, 1, 'nothing pruned: nothing logged');
    });

    it("attempt counters of settled events and resolved alarms go after the locker events' window; open alarms stay", async () => {
      const { db } = storage;
      const old = ago(40 * DAY);
      const recent = ago(DAY);
      const locker = (
        await createPostomat(db, { title: 'Alarms', shortId: `AL${newId().slice(0, 6)}` }, [], clock.now())
      ).id;
      const attempt = (at: string) => ({
        postomatId: locker,
        eventId: newId(),
        attempts: 2,
        firstAt: at,
        lastAt: at,
        lastError: 'boom',
      });
      await db
        .insertInto('locker_event_attempt')
        .values([attempt(old), attempt(old), attempt(recent)])
        .execute();
      const alarm = (raisedAt: string, resolvedAt: string | null) => ({
        id: newId(),
        postomatId: locker,
        kind: 'EVENT_FAILED' as const,
        eventId: newId(),
        orderId: null,
        cellId: null,
        detail: 'x',
        raisedAt,
        resolvedAt,
        resolution: resolvedAt ? 'fixed' : null,
      });
      await db
        .insertInto('locker_alarm')
        .values([alarm(old, old), alarm(old, recent), alarm(old, null)])
        .execute();
      const counts = await new RetentionPruner({ db, clock, logger: silentLogger }, options({ batch: 10 })).runOnce();
      assert.deepEqual([counts.eventAttempts, counts.resolvedAlarms], [2, 1]);
      const alarms = await db
        .selectFrom('locker_alarm')
        .select('resolvedAt')
        .where('postomatId', '=', locker)
        .execute();
      assert.deepEqual(
        alarms.map((a) => a.resolvedAt).sort(),
        [null, recent].sort(),
        'the open alarm and the recently resolved one stay',
      );
      assert.equal(
        (await db.selectFrom('locker_event_attempt').select('eventId').where('postomatId', '=', locker).execute())
          .length,
        1,
      );
    });

    it('the windows are the configured ones: a row a day short of its window stays', async () => {
      const { db } = storage;
      await db.deleteFrom('outbox_event').execute();
      await db
        .insertInto('outbox_event')
        .values([outbox('SENT', ago(9 * DAY)), outbox('SENT', ago(11 * DAY))])
        .execute();
      const o = retentionOptions(loadRetentionConfig({ RETENTION_OUTBOX_DAYS: '10' }));
      assert.equal(o.outboxMs, 10 * DAY);
      const counts = await new RetentionPruner({ db, clock, logger: silentLogger }, { ...o, intervalMs: 0 }).runOnce();
      assert.equal(counts.outboxEvents, 1);
      assert.equal(await count(db, 'outbox_event'), 1);
    });

    it('started with the cloud, it runs on its own every RETENTION_INTERVAL_MS, and stops', async () => {
      const { db } = storage;
      await db
        .insertInto('outbox_event')
        .values(outbox('SENT', ago(60 * DAY)))
        .execute();
      const handle = startRetention(loadRetentionConfig({ RETENTION_INTERVAL_MS: '20' }), {
        db,
        clock,
        logger: silentLogger,
      });
      try {
        const deadline = Date.now() + 10_000; // a guard against a hang, not a timing assertion
        while (
          (
            await db
              .selectFrom('outbox_event')
              .select('id')
              .where('sentAt', '<', ago(30 * DAY))
              .execute()
          ).length > 0
        ) {
          assert.ok(Date.now() < deadline, 'the scheduled run never came');
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        await handle.stop();
      }
    });
  });

  describe(`[${dialect.name}] retention: sync changes and the floor`, () => {
    let storage: TestStorage;
    const clock = new ManualClock('2026-05-01T00:00:00.000Z');
    let companyId: string;
    const newLocker = async () =>
      (
        await createPostomat(
          storage.db,
          { title: 'L', shortId: `R${Math.random().toString(36).slice(2, 8)}` },
          CELLS,
          new Date(),
        )
      ).id;
    const newOrder = (postomatId: string) => orderOps(storage, clock).create(companyId, postomatId);
    const cellOf = async (postomatId: string, number: number) =>
      (
        await storage.db
          .selectFrom('cell')
          .select('id')
          .where('postomatId', '=', postomatId)
          .where('number', '=', number)
          .executeTakeFirstOrThrow()
      ).id;
    const step = (orderId: string, to: 'DELIVERED' | 'COMPLETED' | 'SUBTRACTED', cellId?: string) =>
      orderOps(storage, clock).step(orderId, to, cellId);
    /** What the publisher does once it has handed the delta to the broker. */
    const publish = async (postomatId: string) => {
      const { version } = await lockerVersion(storage.db, postomatId);
      await storage.db
        .updateTable('locker_sync')
        .set({ publishedVersion: version })
        .where('postomatId', '=', postomatId)
        .execute();
      return version;
    };
    const changesOf = async (postomatId: string) =>
      (
        await storage.db
          .selectFrom('locker_sync_change')
          .select('orderId')
          .where('postomatId', '=', postomatId)
          .execute()
      )
        .map((c) => c.orderId)
        .sort();

    before(async () => {
      storage = await openTestStorage(dialect);
      companyId = (
        await createLockerCompany(storage.db, { title: 'C', orderPrice: 1_000, balance: 10_000_000 }, new Date())
      ).id;
    });
    after(() => storage.destroy());

    it('changes of orders no longer held go once published and past the window, the floor rises with them, in batches', async () => {
      const { db } = storage;
      const [locker, other] = [await newLocker(), await newLocker()];
      const created = await newOrder(locker);
      const placed = await newOrder(locker);
      await step(placed, 'DELIVERED', await cellOf(locker, 1));
      const completed = await newOrder(locker);
      await step(completed, 'DELIVERED', await cellOf(locker, 2));
      await step(completed, 'COMPLETED');
      const subtracted = await newOrder(locker);
      await step(subtracted, 'DELIVERED', await cellOf(locker, 3));
      await step(subtracted, 'SUBTRACTED');
      const withdrawn = await newOrder(locker);
      await orderOps(storage, clock).withdraw(withdrawn);
      const moved = await newOrder(locker);
      await orderOps(storage, clock).move(moved, other);
      const published = await publish(locker);
      await publish(other);
      // After the publication: a new order and a finished one, not yet published.
      const unpublishedNew = await newOrder(locker);
      const unpublishedDone = await newOrder(locker);
      await step(unpublishedDone, 'DELIVERED', await cellOf(locker, 4));
      await step(unpublishedDone, 'COMPLETED');

      const counted = countingDb(db);
      const pruner = new RetentionPruner({ db: counted.db, clock, logger: silentLogger }, options({ batch: 2 }));
      assert.deepEqual(
        await pruner.runOnce(),
        {
          outboxEvents: 0,
          lockerEvents: 0,
          commands: 0,
          idempotencyKeys: 0,
          lockerIdempotencyKeys: 0,
          webhookEvents: 0,
          eventAttempts: 0,
          resolvedAlarms: 0,
          syncChanges: 0,
          floorsRaised: 0,
        },
        'nothing is old yet',
      );
      assert.equal((await lockerVersion(db, locker)).floor, 0);

      clock.advance(29 * DAY);
      assert.equal((await pruner.runOnce()).syncChanges, 0, 'a day short of the window: nothing goes');
      clock.advance(2 * DAY);
      counted.statements.length = 0;
      const counts = await pruner.runOnce();
      assert.equal(counts.syncChanges, 4, 'completed, subtracted, withdrawn, moved away');
      // The other locker holds its moved order: nothing of it goes, but its floor too rises to
      // what it had published a window ago.
      assert.equal(counts.floorsRaised, 2);
      assert.equal((await lockerVersion(db, other)).floor, (await lockerVersion(db, other)).publishedVersion);
      assert.deepEqual(
        await changesOf(locker),
        [created, placed, unpublishedNew, unpublishedDone].sort(),
        'held and unpublished changes stay',
      );
      assert.deepEqual(await changesOf(other), [moved], 'the moved order is held at its new locker');
      const deletes = deletesOn(counted.statements, 'locker_sync_change');
      assert.ok(
        deletes.length >= 2 && deletes.every((d) => d.rows <= 2),
        `at most 2 rows per statement: ${deletes.map((d) => d.rows)}`,
      );

      const { floor, version } = await lockerVersion(db, locker);
      assert.equal(floor, published, 'the floor rose to the version published a window ago');
      assert.equal(await count(db, 'locker_sync_checkpoint'), 0, 'checkpoints the floor passed are gone');

      // An agent that holds a version below the floor gets the locker's whole current state.
      const snapshot = await syncForAnnouncement(db, locker, published - 1);
      assert.equal(snapshot?.full, true);
      assert.deepEqual(snapshot!.upserts.map((u) => u.orderId).sort(), [created, placed, unpublishedNew].sort());
      // One at the floor still gets a delta, and it carries the unpublished changes.
      const delta = await syncForAnnouncement(db, locker, published);
      assert.equal(delta?.full, false);
      assert.deepEqual(delta!.removals, [unpublishedDone]);
      assert.deepEqual(
        delta!.upserts.map((u) => u.orderId),
        [unpublishedNew],
      );
      assert.deepEqual(
        (await fullSync(db, locker, version)).upserts.map((u) => u.orderId).sort(),
        [created, placed, unpublishedNew].sort(),
      );

      // Once published and old too, the finished one goes, and the floor follows.
      await publish(locker);
      clock.advance(DAY + 1);
      await pruner.runOnce();
      clock.advance(31 * DAY);
      assert.equal((await pruner.runOnce()).syncChanges, 1);
      assert.deepEqual(await changesOf(locker), [created, placed, unpublishedNew].sort());
      assert.equal((await lockerVersion(db, locker)).floor, version);
    });

    it('a delta read while the pruner raises the floor becomes a full snapshot: no removal is lost', async () => {
      const { db } = storage;
      const locker = await newLocker();
      const kept = await newOrder(locker);
      const finished = await newOrder(locker);
      const agentVersion = await publish(locker);
      await step(finished, 'DELIVERED', await cellOf(locker, 1));
      await step(finished, 'COMPLETED');
      await publish(locker);
      const pruner = new RetentionPruner({ db, clock, logger: silentLogger }, options());
      await pruner.runOnce();
      clock.advance(31 * DAY);

      // The pruner commits right after the announcement's first read of the floor: that read
      // returns the floor of before.
      const floorBefore = (await lockerVersion(db, locker)).floor;
      assert.equal((await pruner.runOnce()).syncChanges, 1);
      assert.ok((await lockerVersion(db, locker)).floor > agentVersion);
      const counted = countingDb(db);
      let reads = 0;
      counted.mapResult = (s, result) =>
        s.kind === 'SelectQueryNode' && s.table === 'locker_sync' && reads++ === 0
          ? { ...result, rows: result.rows.map((r) => ({ ...r, floor: floorBefore })) }
          : result;
      const msg = await syncForAnnouncement(counted.db, locker, agentVersion);
      const held = apply(new Set([kept, finished]), msg!);
      assert.deepEqual([...held], [kept], 'the finished order left the agent');
      assert.equal(msg!.full, true);
      assert.equal(reads, 2, 'the floor is read before and after the changes');
    });
  });

  describe(`[${dialect.name}] retention: two cloud processes prune side by side`, () => {
    let storage: TestStorage;
    const clock = new ManualClock('2026-05-01T00:00:00.000Z');
    before(async () => {
      storage = await openTestStorage(dialect);
    });
    after(() => storage.destroy());

    it('every row goes once, nothing fails, and the floors end where one pruner would leave them', async () => {
      const { db } = storage;
      // A second process: its own connection (pool) to the same database.
      const second = await openStorage(storage.databaseUrl);
      try {
        const companyId = (await createLockerCompany(db, { title: 'C2', orderPrice: 0, balance: 0 }, new Date())).id;
        const lockers = [];
        for (let l = 0; l < 3; l++) {
          const locker = (
            await createPostomat(
              db,
              { title: 'P', shortId: `P${Math.random().toString(36).slice(2, 8)}` },
              CELLS,
              new Date(),
            )
          ).id;
          for (let i = 0; i < 7; i++) {
            const o = await orderOps(storage, clock).create(companyId, locker, false);
            if (i % 2 === 0) await orderOps(storage, clock).withdraw(o);
          }
          await db
            .updateTable('locker_sync')
            .set((eb) => ({ publishedVersion: eb.ref('version') }))
            .where('postomatId', '=', locker)
            .execute();
          lockers.push(locker);
        }
        const a = new RetentionPruner({ db, clock, logger: silentLogger }, options({ batch: 3 }));
        const b = new RetentionPruner({ db: second.db, clock, logger: silentLogger }, options({ batch: 3 }));
        await Promise.all([a.runOnce(), b.runOnce()]);
        clock.advance(31 * DAY);
        const old = new Date(clock.now().getTime() - 40 * DAY).toISOString();
        await db
          .insertInto('outbox_event')
          .values(
            Array.from({ length: 40 }, () => ({
              id: newId(),
              kind: 'SMS' as const,
              event: 'PICKUP_CODE',
              orderId: null,
              target: '+996700000001',
              payload: '{}',
              secretHeader: null,
              state: 'SENT' as const,
              claimedBy: null,
              claimedUntil: null,
              httpStatus: 200,
              error: null,
              latencyMs: 1,
              createdAt: old,
              sentAt: old,
            })),
          )
          .execute();
        await db
          .insertInto('locker_event')
          .values(
            Array.from({ length: 40 }, (_, i) => ({
              postomatId: 'locker-y',
              eventId: newId(),
              seq: i,
              type: 'LOCKOUT',
              orderId: null,
              cellId: null,
              detail: null,
              at: old,
              receivedAt: old,
              outcome: 'STORED' as const,
              note: null,
            })),
          )
          .execute();
        const [ca, cb] = await Promise.all([a.runOnce(), b.runOnce()]);
        assert.equal(ca.outboxEvents + cb.outboxEvents, 40);
        assert.equal(ca.lockerEvents + cb.lockerEvents, 40);
        assert.equal(ca.syncChanges + cb.syncChanges, 3 * 4, 'the four withdrawn orders of each locker');
        assert.equal(await count(db, 'outbox_event'), 0);
        assert.equal(await count(db, 'locker_event'), 0);
        for (const locker of lockers) {
          const v = await lockerVersion(db, locker);
          assert.equal(v.floor, v.version);
          assert.equal(
            (await db.selectFrom('locker_sync_change').select('orderId').where('postomatId', '=', locker).execute())
              .length,
            3,
            'the three orders it holds',
          );
        }
      } finally {
        await second.close();
      }
    });
  });
}
