/**
 * Changes after creation (issue 22) tried in the sandbox: an integrator cancels, redirects and
 * extends orders with the Locker API and sees the simulated lockers follow through the sandbox
 * actions (the real path: keypad, agent, MQTT, cloud).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { sandboxFleetOf } from '../../scripts/sandbox-fleet.ts';
import { DIALECTS } from '../helpers/storage.ts';
import {
  BASE,
  orderRow,
  startSyncWorld,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';

const SANDBOX = '/api/v1/sandbox';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] sandbox: cancel, redirect and extend`, () => {
    let w: SyncWorld;
    let one: CloudLocker;
    let two: CloudLocker;
    let sim1: SimLocker;
    const sims = new Map<string, SimLocker>();
    const sandbox = (path: string) => w.cloud.request('POST', SANDBOX + path, { token: w.company.key });
    const api = (path: string, body?: unknown) => w.cloud.request('POST', BASE + path, { token: w.company.key, body });

    before(async () => {
      w = await startSyncWorld(dialect, { env: { SANDBOX: 'true' } });
      one = await w.newLocker('Sandbox Mall');
      two = await w.newLocker('Sandbox Station');
      sim1 = await w.startAgent(one);
      sims.set(one.id, sim1);
      sims.set(two.id, await w.startAgent(two));
      w.cloud.deps.sandbox!.attach(sandboxFleetOf(sims));
      await untilOnline(w, one.id);
      await untilOnline(w, two.id);
    });
    after(() => w.close());

    it('cancel: placing the cancelled order is refused at the locker ("Wrong code")', async () => {
      const order = await w.createOrder(one.id);
      await untilAgent(sim1, order.id, 'codes at the locker', (o) => o !== undefined);
      assert.equal((await api(`/order/${order.id}/cancel`)).status, 200);
      const place = await sandbox(`/orders/${order.id}/place`);
      assert.equal(place.status, 409, place.text);
      assert.equal(place.body.code, 'LOCKER_REFUSED');
      assert.match(place.body.display, /Wrong code/);
    });

    it('redirect: the order is placed at its new locker with its new code', async () => {
      const order = await w.createOrder(one.id);
      const moved = await api(`/order/${order.id}/redirect`, { postomatId: two.id });
      assert.equal(moved.status, 200, moved.text);
      const place = await sandbox(`/orders/${order.id}/place`);
      assert.equal(place.status, 200, place.text);
      assert.equal(place.body.status, 'DELIVERED');
      const row = await orderRow(w.db, order.id);
      assert.equal(row.postomatId, two.id);
      const cell = await w.db
        .selectFrom('cell')
        .select('postomatId')
        .where('id', '=', row.cellId!)
        .executeTakeFirstOrThrow();
      assert.equal(cell.postomatId, two.id, 'in a cell of the new locker');
    });

    it("extend: a placed order's new storage end reaches the locker, whose screen names it when staff take the parcel out", async () => {
      const order = await w.createOrder(one.id);
      assert.equal((await sandbox(`/orders/${order.id}/place`)).status, 200);
      const extended = await api(`/order/${order.id}/extend`, { days: 2 });
      assert.equal(extended.status, 200, extended.text);
      const end = extended.body.endDateTime as string;
      await untilAgent(sim1, order.id, 'the new storage end', (o) => o?.storageEnd === end);
      const out = await sandbox(`/orders/${order.id}/subtract`);
      assert.equal(out.status, 200, out.text);
      assert.equal(out.body.status, 'SUBTRACTED');
      assert.ok(out.body.display.includes(`stored until ${end.slice(0, 16).replace('T', ' ')} UTC`), out.body.display);
    });
  });
}
