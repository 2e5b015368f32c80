/**
 * The link breaking where only the embedded broker lets a test break it: the broker
 * restarted, a delta lost on the way, the agent killed in the middle of a door cycle. Each
 * time the two sides catch up, and every event is applied exactly once. (The agent offline and
 * the cloud restarted are in scenarios.ts, run over every broker.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import {
  codesOf,
  eventsOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';
import { outboxEmpty, untilStatus } from './scenarios.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] the embedded broker restarted, a delta lost`, () => {
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

    /** Places an order's parcel at the locker (the agent online or not). */
    async function place(orderId: string, downCode?: string): Promise<string> {
      const cell = await typeAndWaitOpen(sim, downCode ?? (await codesOf(w, orderId)).DOWN).catch((err) => {
        throw new Error(`${err.message}: ${sim.displayLines.slice(-6).join(' | ')}`);
      });
      await useCell(sim, cell, true);
      return cell;
    }

    it('the broker restarted: both sides reconnect, nothing is lost or doubled', async () => {
      const order = await w.createOrder(locker.id, { pay: true });
      await untilAgent(sim, order.id, 'order known', (o) => o !== undefined);
      const { DOWN } = await codesOf(w, order.id);
      let later: { id: string } | undefined;
      await w.cloud.sync.broker!.restart(async () => {
        await place(order.id, DOWN);
        later = await w.createOrder(locker.id, { pay: true });
      });
      await untilStatus(w, order.id, 'DELIVERED');
      await untilAgent(sim, later!.id, 'order created during the outage', (o) => o !== undefined);
      await outboxEmpty(sim);
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:APPLIED'],
      );
    });

    it('a delta that skips versions the agent does not hold is refused, and the agent asks again', async () => {
      const first = await w.createOrder(locker.id, { pay: true });
      await untilAgent(sim, first.id, 'order known', (o) => o !== undefined);
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      const missed = await w.createOrder(locker.id, { pay: true });
      await w.cloud.sync.publisher.tick(); // published into the void: the agent is away
      await sim.agent.setNetwork(true);
      await untilAgent(sim, missed.id, 'caught up on reconnect', (o) => o !== undefined);
      // Now lose a delta on purpose: mark a version published that the agent never got.
      await w.db.transaction().execute(async (trx) => {
        const v = await trx
          .selectFrom('locker_sync')
          .select('version')
          .where('postomatId', '=', locker.id)
          .executeTakeFirstOrThrow();
        await trx
          .updateTable('locker_sync')
          .set({ version: Number(v.version) + 1, publishedVersion: Number(v.version) + 1 })
          .where('postomatId', '=', locker.id)
          .execute();
      });
      const next = await w.createOrder(locker.id, { pay: true });
      await untilAgent(sim, next.id, 'the next order after the gap', (o) => o !== undefined);
    });
  });

  describe(`[${dialect.name}] the agent killed in the middle of a placement`, () => {
    let w: SyncWorld;
    before(async () => {
      w = await startSyncWorld(dialect);
    });
    after(() => w.close());

    it('SIGKILL between unlock and door close: after the restart the placement is reported once', async () => {
      const locker = await w.newLocker();
      const sim = await w.startAgent(locker, { agentMode: 'child' });
      await untilOnline(w, locker.id);
      const order = await w.createOrder(locker.id);
      const codes = await codesOf(w, order.id);
      const { version } = await w.db
        .selectFrom('locker_sync')
        .select('version')
        .where('postomatId', '=', locker.id)
        .executeTakeFirstOrThrow();
      await until('the agent holds the order', async () =>
        (await sim.agent.syncVersion()) >= Number(version) ? true : undefined,
      );
      const cell = await typeAndWaitOpen(sim, codes.DOWN);

      await sim.restartAgent({ kill: true });
      sim.setParcel(cell, true);
      sim.closeDoor(cell);
      await untilStatus(w, order.id, 'DELIVERED');
      await until('outbox empty', async () => ((await sim.agent.pendingEvents()).length === 0 ? true : undefined));
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).filter((e) => e.type === 'PLACED').map((e) => e.outcome),
        ['APPLIED'],
      );
      await untilOnline(w, locker.id);
    });
  });
}
