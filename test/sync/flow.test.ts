/**
 * An order's physical life through the real stack: HTTP API, cloud, embedded broker, a real
 * agent over pseudo-terminals, the simulated locker. Placement makes it DELIVERED (cell and
 * storage period), pickup is refused while unpaid, payment reaches the locker, pickup makes it
 * COMPLETED; the SUBTRACT code makes it SUBTRACTED.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runOperator } from '../../cloud/operator/cli.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import { agentOrder, codesOf, eventsOf, startSyncWorld, until, untilAgent, untilOnline, useCell, type CloudLocker, type SyncWorld } from './harness.ts';

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] an order through the locker`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    before(async () => {
      w = await startSyncWorld(dialect, { orderPrice: 15_000 });
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
    });
    after(() => w.close());

    it('create → DOWN → DELIVERED → UP refused while unpaid → paid → UP → COMPLETED', async () => {
      const created = await w.createOrder(locker.id);
      assert.equal(created.notPaidAmount, 150);
      const codes = await codesOf(w, created.id);
      await untilAgent(sim, created.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);

      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      await useCell(sim, cell, true);
      const delivered = await until('DELIVERED', async () => {
        const o = await w.order(created.id);
        return o.cellId ? o : undefined;
      });
      assert.equal(delivered.cellId, locker.cells.find((c) => String(c.number) === cell)!.id, 'the cloud cell with the number the agent used');
      assert.equal(delivered.cell.number, Number(cell));
      assert.ok(delivered.startDateTime);
      assert.equal(Date.parse(delivered.endDateTime) - Date.parse(delivered.startDateTime), 2 * DAY, 'the company default: 2 days');
      assert.deepEqual(delivered.statuses.map((s: any) => s.type), ['CREATED', 'DELIVERED']);
      // The cloud told the agent where its parcel is, and the placement left the agent's outbox.
      await untilAgent(sim, created.id, 'DELIVERED in its cell', (o) => o?.status === 'DELIVERED' && o.cellId === cell);
      await until('outbox empty', async () => ((await sim.agent.pendingEvents()).length === 0 ? true : undefined));

      const from = sim.displayLines.length;
      await sim.typeCode(codes.UP);
      assert.match(await waitForDisplay(sim, /not paid/, from), /Order not paid: pay 150\.00 before pickup/);
      assert.equal((await w.order(created.id)).cellId, delivered.cellId);

      const paid = await runOperator(['order', 'pay', '--id', created.id], {}, w.cloud.storage);
      assert.equal(paid.code, 0, paid.stderr);
      await untilAgent(sim, created.id, 'paid', (o) => o?.notPaidAmount === 0);

      assert.equal(await typeAndWaitOpen(sim, codes.UP), cell);
      await useCell(sim, cell, false);
      const completed = await until('COMPLETED', async () => {
        const o = await w.order(created.id);
        return o.statuses.length === 3 ? o : undefined;
      });
      assert.deepEqual(completed.statuses.map((s: any) => s.type), ['CREATED', 'DELIVERED', 'COMPLETED']);
      assert.equal(completed.notPaidAmount, 0);
      const outbox = await w.db.selectFrom('outbox_event').select(['kind', 'event']).where('orderId', '=', created.id).execute();
      assert.deepEqual(outbox.map((e) => `${e.kind}:${e.event}`), ['COMPANY_NOTIFICATION:COMPLETED']);
      // Exactly once: one row per event, the rejected pickup stored for the operator.
      assert.deepEqual(
        (await eventsOf(w.db, created.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:APPLIED', 'CODE_REJECTED:STORED', 'PICKED_UP:APPLIED'],
      );
      // A finished order leaves the locker's copy, and its codes stop working there.
      await untilAgent(sim, created.id, 'order removed', (o) => o === undefined);
    });

    it('the SUBTRACT code takes a placed parcel out: SUBTRACTED', async () => {
      const created = await w.createOrder(locker.id, { pay: true });
      const codes = await codesOf(w, created.id);
      await untilAgent(sim, created.id, 'order known', (o) => o !== undefined);
      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      await useCell(sim, cell, true);
      await untilAgent(sim, created.id, 'cell known', (o) => o?.cellId === cell && o.status === 'DELIVERED');
      await until('DELIVERED', async () => ((await w.order(created.id)).cellId ? true : undefined));

      assert.equal(await typeAndWaitOpen(sim, codes.SUBTRACT), cell);
      await useCell(sim, cell, false);
      const done = await until('SUBTRACTED', async () => {
        const o = await w.order(created.id);
        return o.statuses.at(-1).type === 'SUBTRACTED' ? o : undefined;
      });
      assert.deepEqual(done.statuses.map((s: any) => s.type), ['CREATED', 'DELIVERED', 'SUBTRACTED']);
      // The company notification was written with the status change.
      const outbox = await w.db.selectFrom('outbox_event').select(['kind', 'event']).where('orderId', '=', created.id).execute();
      assert.deepEqual(outbox.map((e) => `${e.kind}:${e.event}`), ['COMPANY_NOTIFICATION:SUBTRACTED']);
      await untilAgent(sim, created.id, 'order removed', (o) => o === undefined);
      assert.equal(agentOrder(sim, created.id), undefined);
    });
  });
}
