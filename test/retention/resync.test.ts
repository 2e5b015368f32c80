/**
 * A locker offline for longer than the sync retention window, through the real stack (cloud,
 * embedded broker, a real agent and its store): while it is away its orders change, time
 * passes, the pruner deletes the change rows of the orders it no longer holds and raises the
 * floor above the version the agent holds. When it comes back it announces that version and
 * gets a full snapshot: no stale order (a finished order's codes live at the locker would
 * open a cell that now holds someone else's parcel), no missing one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, systemClock } from '../../shared/clock.ts';
import { loadRetentionConfig } from '../../cloud/config.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { RetentionPruner, retentionOptions } from '../../cloud/retention/pruner.ts';
import { syncForAnnouncement } from '../../cloud/sync/sync-out.ts';
import { lockerVersion } from '../../cloud/storage/locker-sync-queries.ts';
import { InProcessAgent } from '../../hardware-sim/agent-handle.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { orderOps } from './orders.ts';
import {
  codesOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';

const DAY = 86_400_000;

/** Every order the agent's store holds, with what a locker needs of it. */
function agentOrders(sim: SimLocker) {
  if (!(sim.agent instanceof InProcessAgent)) throw new Error('needs an in-process agent');
  return sim.agent.agent.store
    .orders()
    .map((o) => ({ orderId: o.orderId, codes: o.codes, notPaidAmount: o.notPaidAmount, status: o.status }));
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] a locker offline past the retention window`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    before(async () => {
      w = await startSyncWorld(dialect, { orderPrice: 1_000 });
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
    });
    after(() => w.close());

    it("resyncs from a full snapshot: exactly the locker's current orders, with their codes", async () => {
      const other = await w.newLocker();
      const kept = await w.createOrder(locker.id, { pay: true });
      const unpaid = await w.createOrder(locker.id);
      const completed = await w.createOrder(locker.id, { pay: true });
      const withdrawn = await w.createOrder(locker.id, { pay: true });
      const moved = await w.createOrder(locker.id, { pay: true });
      const before = await lockerVersion(w.db, locker.id);
      await until('the agent holds every order', async () =>
        (await sim.agent.syncVersion()) === before.version ? true : undefined,
      );
      const held = await sim.agent.syncVersion();
      assert.deepEqual(
        agentOrders(sim)
          .map((o) => o.orderId)
          .sort(),
        [kept.id, unpaid.id, completed.id, withdrawn.id, moved.id].sort(),
      );

      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      // Away: one order placed and collected (as staff would settle it), one withdrawn, one
      // moved to another locker, one paid, one new.
      const ops = orderOps(w.cloud.storage, systemClock);
      await ops.step(completed.id, 'DELIVERED', locker.cells[0].id);
      await ops.step(completed.id, 'COMPLETED');
      await ops.withdraw(withdrawn.id);
      await ops.move(moved.id, other.id);
      await ops.pay(unpaid.id);
      const fresh = await w.createOrder(locker.id, { pay: true });
      // The cloud publishes into the void: the agent is not there to hear it.
      const current = await lockerVersion(w.db, locker.id);
      await w.cloud.sync.publisher.tick();
      await until('the changes published', async () =>
        (await lockerVersion(w.db, locker.id)).publishedVersion === current.version ? true : undefined,
      );

      // Time passes beyond the window, and the pruner runs (as it does every few minutes).
      const clock = new ManualClock(new Date());
      const pruner = new RetentionPruner(
        { db: w.db, clock, logger: silentLogger },
        { ...retentionOptions(loadRetentionConfig({})), batch: 2 },
      );
      await pruner.runOnce();
      clock.advance(31 * DAY);
      const counts = await pruner.runOnce();
      assert.equal(counts.syncChanges, 3, "the completed, withdrawn and moved orders' changes");
      const { floor, version } = await lockerVersion(w.db, locker.id);
      assert.ok(floor > held, `the floor ${floor} rose above the agent's version ${held}`);
      assert.equal((await syncForAnnouncement(w.db, locker.id, held))?.full, true);

      assert.deepEqual(
        agentOrders(sim)
          .map((o) => o.orderId)
          .sort(),
        [kept.id, unpaid.id, completed.id, withdrawn.id, moved.id].sort(),
        'the agent still holds what it held',
      );

      await sim.agent.setNetwork(true);
      await until('the agent resynced', async () => ((await sim.agent.syncVersion()) === version ? true : undefined));
      const after = agentOrders(sim).sort((a, b) => a.orderId.localeCompare(b.orderId));
      const expected = [kept, unpaid, fresh].map((o) => o.id).sort();
      assert.deepEqual(
        after.map((o) => o.orderId),
        expected,
        'no stale order, no missing one',
      );
      for (const o of after) {
        assert.deepEqual(o.codes, await codesOf(w, o.orderId), `codes of ${o.orderId}`);
        assert.equal(o.status, 'CREATED');
        assert.equal(o.notPaidAmount, 0, 'the payment made while it was away is known');
      }
      // And the link carries on with deltas from there.
      const next = await w.createOrder(locker.id, { pay: true });
      await untilAgent(sim, next.id, 'an order created after the resync', (o) => o !== undefined);
    });
  });
}
