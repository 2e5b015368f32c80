/**
 * An order's physical life through the real stack (HTTP API, cloud, broker, a real agent over
 * pseudo-terminals, the simulated locker), registered once per broker: the embedded one
 * (flow.test.ts) and an external Mosquitto (mosquitto.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runOperator } from '../../cloud/operator/cli.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import {
  agentOrder,
  codesOf,
  eventsOf,
  orderRow,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
  type WorldOptions,
} from './harness.ts';

const DAY = 86_400_000;

export const untilStatus = (w: SyncWorld, id: string, status: string) =>
  until(`order ${status}`, async () => ((await orderRow(w.db, id)).status === status ? true : undefined));
export const outboxEmpty = (sim: SimLocker) =>
  until('agent outbox empty', async () => ((await sim.agent.pendingEvents()).length === 0 ? true : undefined));
const kinds = async (w: SyncWorld, orderId: string) =>
  (await w.db.selectFrom('outbox_event').select(['kind', 'event']).where('orderId', '=', orderId).execute()).map(
    (e) => `${e.kind}:${e.event}`,
  );
const history = async (w: SyncWorld, orderId: string) =>
  (await eventsOf(w.db, orderId)).map((e) => `${e.type}:${e.outcome}`);

export function brokerScenarios(broker: string, options: WorldOptions = {}): void {
  for (const dialect of DIALECTS) {
    describe(`[${dialect.name}, ${broker}] an order through the locker`, () => {
      let w: SyncWorld;
      let locker: CloudLocker;
      let sim: SimLocker;
      before(async () => {
        w = await startSyncWorld(dialect, { orderPrice: 15_000, ...options });
        locker = await w.newLocker();
        sim = await w.startAgent(locker);
        await untilOnline(w, locker.id);
      });
      after(() => w.close());

      /** Types the order's DOWN code once the agent has it, puts a parcel in, closes the door. */
      async function place(orderId: string, downCode?: string): Promise<string> {
        const code = downCode ?? (await codesOf(w, orderId)).DOWN;
        await untilAgent(sim, orderId, 'order known', (o) => o?.codes.DOWN === code);
        const cell = await typeAndWaitOpen(sim, code);
        await useCell(sim, cell, true);
        return cell;
      }

      it('create → DOWN → DELIVERED → UP refused while unpaid → paid → UP → COMPLETED', async () => {
        const created = await w.createOrder(locker.id);
        assert.equal(created.notPaidAmount, 150);
        const codes = await codesOf(w, created.id);
        const cell = await place(created.id, codes.DOWN);
        const delivered = await until('DELIVERED', async () => {
          const o = await w.order(created.id);
          return o.cellId ? o : undefined;
        });
        assert.equal(
          delivered.cellId,
          locker.cells.find((c) => String(c.number) === cell)!.id,
          'the cloud cell with the number the agent used',
        );
        assert.equal(delivered.cell.number, Number(cell));
        assert.equal(
          Date.parse(delivered.endDateTime) - Date.parse(delivered.startDateTime),
          2 * DAY,
          'the company default: 2 days',
        );
        assert.deepEqual(
          delivered.statuses.map((s: any) => s.type),
          ['CREATED', 'DELIVERED'],
        );
        // The cloud told the agent where its parcel is, and the placement left the agent's outbox.
        await untilAgent(
          sim,
          created.id,
          'DELIVERED in its cell',
          (o) => o?.status === 'DELIVERED' && o.cellId === cell,
        );
        await outboxEmpty(sim);

        const from = sim.displayLines.length;
        await sim.typeCode(codes.UP);
        assert.match(await waitForDisplay(sim, /not paid/, from), /Order not paid: pay 150\.00 before pickup/);
        assert.equal((await orderRow(w.db, created.id)).status, 'DELIVERED');

        const paid = await runOperator(['order', 'pay', '--id', created.id], {}, w.cloud.storage);
        assert.equal(paid.code, 0, paid.stderr);
        await untilAgent(sim, created.id, 'paid', (o) => o?.notPaidAmount === 0);

        assert.equal(await typeAndWaitOpen(sim, codes.UP), cell);
        await useCell(sim, cell, false);
        await untilStatus(w, created.id, 'COMPLETED');
        const completed = await w.order(created.id);
        assert.deepEqual(
          completed.statuses.map((s: any) => s.type),
          ['CREATED', 'DELIVERED', 'COMPLETED'],
        );
        assert.equal(completed.notPaidAmount, 0);
        assert.deepEqual(
          await kinds(w, created.id),
          ['COMPANY_NOTIFICATION:COMPLETED'],
          'written with the status change',
        );
        // Exactly once: one row per event; the refused pickup kept for the operator.
        assert.deepEqual(await history(w, created.id), ['PLACED:APPLIED', 'CODE_REJECTED:STORED', 'PICKED_UP:APPLIED']);
        // A finished order leaves the locker's copy, and its codes stop working there.
        await untilAgent(sim, created.id, 'order removed', (o) => o === undefined);
      });

      it('the SUBTRACT code takes a placed parcel out: SUBTRACTED', async () => {
        const created = await w.createOrder(locker.id, { pay: true });
        const codes = await codesOf(w, created.id);
        const cell = await place(created.id, codes.DOWN);
        await untilAgent(sim, created.id, 'cell known', (o) => o?.cellId === cell && o.status === 'DELIVERED');
        await untilStatus(w, created.id, 'DELIVERED');

        assert.equal(await typeAndWaitOpen(sim, codes.SUBTRACT), cell);
        await useCell(sim, cell, false);
        await untilStatus(w, created.id, 'SUBTRACTED');
        assert.deepEqual(
          (await w.order(created.id)).statuses.map((s: any) => s.type),
          ['CREATED', 'DELIVERED', 'SUBTRACTED'],
        );
        assert.deepEqual(await kinds(w, created.id), ['COMPANY_NOTIFICATION:SUBTRACTED']);
        await untilAgent(sim, created.id, 'order removed', (o) => o === undefined);
      });

      it('staff subtraction: the locker opens the cell, the order ends SUBTRACTED when the parcel is out', async () => {
        const created = await w.createOrder(locker.id, { pay: true });
        const cell = await place(created.id);
        await untilStatus(w, created.id, 'DELIVERED');
        const from = sim.displayLines.length;
        const r = await runOperator(['order', 'subtract', '--id', created.id], {}, w.cloud.storage);
        assert.equal(r.code, 0, r.stderr);
        assert.match(
          await waitForDisplay(sim, /open for removal/, from),
          new RegExp(`Cell ${cell} is open for removal`),
        );
        assert.equal((await orderRow(w.db, created.id)).status, 'DELIVERED');
        await useCell(sim, cell, false);
        await untilStatus(w, created.id, 'SUBTRACTED');
        assert.deepEqual(await history(w, created.id), ['PLACED:APPLIED', 'SUBTRACTED:APPLIED']);
      });

      it('an order created while the agent is offline reaches it when it reconnects', async () => {
        await sim.agent.setNetwork(false);
        await untilOnline(w, locker.id, false);
        const order = await w.createOrder(locker.id, { pay: true });
        await w.cloud.sync.publisher.tick();
        assert.equal(agentOrder(sim, order.id), undefined);
        await sim.agent.setNetwork(true);
        await untilAgent(sim, order.id, 'order arrived', (o) => o?.status === 'CREATED');
        await place(order.id);
        await untilStatus(w, order.id, 'DELIVERED');
      });

      it('a placement while the agent is offline reaches the cloud once it reconnects, exactly once', async () => {
        const order = await w.createOrder(locker.id, { pay: true });
        await untilAgent(sim, order.id, 'order known', (o) => o !== undefined);
        await sim.agent.setNetwork(false);
        await untilOnline(w, locker.id, false);
        const cell = await place(order.id);
        await untilAgent(sim, order.id, 'placed locally', (o) => o?.status === 'DELIVERED');
        assert.equal((await sim.agent.pendingEvents()).filter((e) => e.type === 'PLACED').length, 1);
        assert.equal((await orderRow(w.db, order.id)).status, 'CREATED');

        await sim.agent.setNetwork(true);
        await untilStatus(w, order.id, 'DELIVERED');
        await outboxEmpty(sim);
        assert.equal((await orderRow(w.db, order.id)).cellId, locker.cells.find((c) => String(c.number) === cell)!.id);
        assert.deepEqual(await history(w, order.id), ['PLACED:APPLIED']);
      });

      it('the cloud restarted: what happened on both sides meanwhile is caught up', async () => {
        const toPlace = await w.createOrder(locker.id, { pay: true });
        const toPay = await w.createOrder(locker.id);
        await untilAgent(sim, toPay.id, 'orders known', (o) => o?.notPaidAmount === 15_000);
        const { DOWN } = await codesOf(w, toPlace.id);
        await w.stopCloud();
        await place(toPlace.id, DOWN);
        // Staff settle an order with the CLI while no cloud process runs.
        const paid = await runOperator(['order', 'pay', '--id', toPay.id], {}, w.cloud.storage);
        assert.equal(paid.code, 0, paid.stderr);
        await w.startCloud();
        await untilStatus(w, toPlace.id, 'DELIVERED');
        await untilAgent(sim, toPay.id, 'payment arrived', (o) => o?.notPaidAmount === 0);
        await outboxEmpty(sim);
        assert.deepEqual(await history(w, toPlace.id), ['PLACED:APPLIED']);
      });
    });
  }
}
