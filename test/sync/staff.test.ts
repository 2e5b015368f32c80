/**
 * Staff subtraction through the locker: the operator CLI (its own process) writes a command,
 * the running cloud sends it, the agent opens the cell once (even when the command comes
 * again), and the order becomes SUBTRACTED when the agent reports the parcel gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runOperator } from '../../cloud/operator/cli.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import {
  codesOf,
  eventsOf,
  operatorProcess,
  orderRow,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';

const command = (w: SyncWorld, orderId: string) =>
  w.db.selectFrom('locker_command').selectAll().where('orderId', '=', orderId).executeTakeFirstOrThrow();

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] staff subtraction through the locker`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    before(async () => {
      w = await startSyncWorld(dialect);
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
    });
    after(() => w.close());

    /** An order whose parcel is in a cell, as the cloud knows it. */
    async function placed(): Promise<{ id: string; cell: string }> {
      const order = await w.createOrder(locker.id, { pay: true });
      const codes = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o !== undefined);
      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      await useCell(sim, cell, true);
      await until('DELIVERED', async () =>
        (await orderRow(w.db, order.id)).status === 'DELIVERED' ? true : undefined,
      );
      return { id: order.id, cell };
    }

    it('order subtract (CLI process) → the cell opens for staff → parcel out → SUBTRACTED; a redelivery opens nothing', async () => {
      const order = await placed();
      const from = sim.displayLines.length;
      const cli = await operatorProcess(w, ['order', 'subtract', '--id', order.id]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, new RegExp(`Sent to the locker .*opens cell ${order.cell} for staff`));
      assert.match(cli.stdout, /becomes SUBTRACTED when staff take the parcel out/);
      assert.equal((await orderRow(w.db, order.id)).status, 'DELIVERED', 'nothing changes before the locker acts');

      assert.match(
        await waitForDisplay(sim, /open for removal/, from),
        new RegExp(`Cell ${order.cell} is open for removal`),
      );
      await until('command answered', async () => ((await command(w, order.id)).state === 'DONE' ? true : undefined));
      await useCell(sim, order.cell, false);
      await until('SUBTRACTED', async () =>
        (await orderRow(w.db, order.id)).status === 'SUBTRACTED' ? true : undefined,
      );
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:APPLIED', 'SUBTRACTED:APPLIED'],
      );

      // The same command again (a process died between claiming and publishing it): answered, not re-run.
      const opened = sim.displayLines.filter((l) => /open for removal/.test(l)).length;
      await w.db.updateTable('locker_command').set({ state: 'PENDING' }).where('orderId', '=', order.id).execute();
      // Written behind the cloud's back, as a crash would leave it: its safety-net poll finds it.
      w.cloud.sync.publisher.soon();
      await until('redelivery answered', async () =>
        (await command(w, order.id)).state === 'DONE' ? true : undefined,
      );
      assert.equal(sim.displayLines.filter((l) => /open for removal/.test(l)).length, opened);
      assert.equal(sim.hardwareCells().find((c) => c.cellId === order.cell)?.doorClosed, true);

      const status = await runOperator(['locker', 'status', '--id', locker.id], {}, w.cloud.storage);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /connection: online since/);
      assert.match(status.stdout, /OPEN_CELL\s+DONE/);
      assert.match(status.stdout, /SUBTRACTED\s+APPLIED/);
    });

    it('a command for an offline locker waits for it, and asking twice reuses it', async () => {
      const order = await placed();
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      const first = await runOperator(['order', 'subtract', '--id', order.id, '--json'], {}, w.cloud.storage);
      const again = await runOperator(['order', 'subtract', '--id', order.id], {}, w.cloud.storage);
      assert.equal(JSON.parse(first.stdout).command.created, true);
      assert.match(again.stdout, /Already sent to the locker/);
      assert.match(again.stdout, /The locker is offline now/);
      await w.cloud.sync.publisher.tick();
      assert.equal((await command(w, order.id)).state, 'PENDING', 'not sent to an offline locker');

      const from = sim.displayLines.length;
      await sim.agent.setNetwork(true);
      await waitForDisplay(sim, /open for removal/, from);
      await useCell(sim, order.cell, false);
      await until('SUBTRACTED', async () =>
        (await orderRow(w.db, order.id)).status === 'SUBTRACTED' ? true : undefined,
      );
      const rows = await w.db.selectFrom('locker_command').select('state').where('orderId', '=', order.id).execute();
      assert.deepEqual(
        rows.map((r) => r.state),
        ['DONE'],
      );
    });

    it('the agent refuses a command past its expiry: the cell stays shut', async () => {
      const order = await placed();
      const stale = {
        v: '1.0',
        commandId: 'stale-1',
        type: 'OPEN_CELL',
        cellId: order.cell,
        orderId: order.id,
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      };
      assert.deepEqual(await sim.agent.command(stale), {
        v: '1.0',
        commandId: 'stale-1',
        status: 'error',
        error: 'command expired',
      });
      assert.equal(sim.hardwareCells().find((c) => c.cellId === order.cell)?.doorClosed, true);
    });

    it('refuses orders whose parcel is not in a cell, and says why', async () => {
      const order = await w.createOrder(locker.id);
      const r = await runOperator(['order', 'subtract', '--id', order.id], {}, w.cloud.storage);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /is CREATED, cannot become SUBTRACTED: its parcel is not in a cell yet/);
      assert.equal(
        await w.db.selectFrom('locker_command').select('id').where('orderId', '=', order.id).executeTakeFirst(),
        undefined,
      );
    });
  });
}
