/**
 * Changes reach lockers and receivers right after their commit, whoever made them: this cloud
 * (an order created over HTTP), or another process on the database (the operator CLI). The
 * polls are set to a minute here, so only the wake-ups can meet these deadlines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { DIALECTS } from '../helpers/storage.ts';
import {
  agentOrder,
  operatorProcess,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';

/** Far below the one-minute polls; generous for a loaded machine. */
const DEADLINE_MS = 5_000;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] wake-ups after commit (polls at 60 s)`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;

    before(async () => {
      w = await startSyncWorld(dialect, { orderPrice: 5_000, env: { SYNC_POLL_MS: '60000', EVENT_POLL_MS: '60000' } });
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
    });
    after(() => w.close());

    it('every new order reaches the connected agent with its codes within seconds', async () => {
      // Several in a row: on PostgreSQL a wake-up before COMMIT found nothing to publish about half the time.
      for (let i = 0; i < 8; i++) {
        const order = await w.createOrder(locker.id, { toUserPhone: `+99655510000${i}` });
        await until(`order ${i + 1} at the agent`, () => agentOrder(sim, order.id)?.codes.DOWN, DEADLINE_MS);
      }
    });

    it('a payment taken by the operator in another process reaches the agent within seconds', async () => {
      const order = await w.createOrder(locker.id);
      await untilAgent(sim, order.id, 'unpaid at the agent', (o) => (o?.notPaidAmount ?? 0) > 0);
      const cli = await operatorProcess(w, ['order', 'pay', '--id', order.id]);
      assert.equal(cli.code, 0, cli.stderr);
      await until('paid at the agent', () => agentOrder(sim, order.id)?.notPaidAmount === 0 || undefined, DEADLINE_MS);
    });

    it("an order's outbound events are sent within seconds of the change that caused them", async () => {
      const order = await w.createOrder(locker.id, { pay: true });
      // Staff close it by hand (another process): COMPLETED-like events go to the company URL.
      await untilAgent(sim, order.id, 'order at the agent', (o) => !!o);
      const placed = await w.cloud.deps.uow.run(async (tx) => {
        const { transitionOrder } = await import('../../cloud/services/order-transitions.ts');
        return transitionOrder(tx, { orderId: order.id, to: 'DELIVERED', cellId: locker.cells[0].id, at: new Date() });
      });
      assert.equal(placed.status, 'DELIVERED');
      const cli = await operatorProcess(w, ['order', 'subtract', '--id', order.id, '--manual']);
      assert.equal(cli.code, 0, cli.stderr);
      const row = await until(
        'the notification attempted',
        async () =>
          (await w.db
            .selectFrom('outbox_event')
            .select(['state', 'event'])
            .where('orderId', '=', order.id)
            .where('kind', '=', 'COMPANY_NOTIFICATION')
            .executeTakeFirst()) ?? undefined,
        DEADLINE_MS,
      );
      assert.equal(row.event, 'SUBTRACTED');
      await until(
        'the notification no longer pending',
        async () => {
          const r = await w.db
            .selectFrom('outbox_event')
            .select('state')
            .where('orderId', '=', order.id)
            .where('kind', '=', 'COMPANY_NOTIFICATION')
            .executeTakeFirstOrThrow();
          return r.state !== 'PENDING' || undefined;
        },
        DEADLINE_MS,
      );
    });
  });
}
