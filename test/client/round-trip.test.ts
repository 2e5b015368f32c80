/**
 * The client's example program (client/examples/round-trip.ts) against a running sandbox: an
 * order created, placed and collected at a simulated locker, and the company's COMPLETED
 * notification received by its own HTTP receiver.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { roundTrip } from '../../client/examples/round-trip.ts';
import { updateLockerCompany } from '../../cloud/services/admin/companies.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { sandboxFleetOf } from '../../scripts/sandbox-fleet.ts';
import { eventually, startReceiver, type Receiver } from '../helpers/receiver.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { startSyncWorld, untilOnline, type SyncWorld } from '../sync/harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] the client's round trip against the sandbox`, () => {
    let w: SyncWorld;
    let receiver: Receiver;
    let lockerId: string;

    before(async () => {
      receiver = await startReceiver();
      w = await startSyncWorld(dialect, { env: { SANDBOX: 'true', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
      await updateLockerCompany(w.db, w.company.id, { notificationUrl: `${receiver.url}/lockers/notify` }, new Date());
      const locker = await w.newLocker('Client Mall');
      lockerId = locker.id;
      const sim: SimLocker = await w.startAgent(locker);
      w.cloud.deps.sandbox!.attach(sandboxFleetOf(new Map([[locker.id, sim]])));
      await untilOnline(w, locker.id);
    });
    after(async () => {
      await w.close();
      await receiver.close();
    });

    it('create → place → read → collect, and the COMPLETED notification arrives', async () => {
      const lines: string[] = [];
      const { order, placed, read, collected } = await roundTrip(w.cloud.url, w.company.key, lockerId, (l) =>
        lines.push(l),
      );
      assert.equal(placed.status, 'DELIVERED');
      assert.equal(read.currentStatus?.type, 'DELIVERED');
      assert.equal(read.cell?.number, Number(placed.cell));
      assert.equal(collected.status, 'COMPLETED');
      assert.equal(lines.length, 5);
      const note = await eventually(() => {
        const r = receiver.received.find((x) => x.path === '/lockers/notify');
        assert.ok(r, 'the notification was received');
        return r;
      });
      assert.equal(note.method, 'POST');
      assert.match(note.body, new RegExp(order.id));
    });
  });
}
