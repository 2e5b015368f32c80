/**
 * The agent's side of two issue-16 rules, on the simulator over in-memory links:
 * - one typed code can be the DOWN code of a CREATED order and the UP code of a DELIVERED one
 *   (codes are unique per type, shared/locker-codes.ts): the placement wins, no parcel's cell
 *   opens for it, and the pickup works once the placement is done;
 * - with a cloud configured, parcels go only into active cells of the cloud's cell map (sent
 *   with the sync messages); a store from before cell maps, or a cloud that sends none (older),
 *   keeps the config's cells.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONTRACT_VERSION, type CellMap, type SyncOrder } from '../../shared/mqtt/index.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import type { InProcessAgent } from '../../hardware-sim/agent-handle.ts';
import { order, startLocker, syncOf, typeAndWaitOpen, waitForDisplay, waitForEvent } from '../helpers/sim-harness.ts';
import type { CellConfig } from '../../locker-agent/config.ts';

function useDoor(locker: SimLocker, cellId: string, parcel: boolean): void {
  locker.setParcel(cellId, parcel);
  locker.closeDoor(cellId);
}

/** Cells named by number, as with a cloud. */
const numbered = (numbers: number[]): CellConfig[] =>
  numbers.map((n, i) => ({ cellId: String(n), board: 0, lock: i + 1, size: 'M' }));

describe("a code that is one order's DOWN and another's UP", () => {
  let locker: SimLocker;
  let close: () => Promise<void>;
  before(async () => {
    ({ locker, close } = await startLocker({ transport: 'memory', cells: numbered([1, 2, 3]) }));
    // The placed order first: it is also first in the store.
    locker.board(0).lock(1).parcel = true;
    await locker.agent.applySync(
      syncOf([
        order('o-placed', ['4001', '1111', '4003'], { status: 'DELIVERED', cellId: '1' }),
        order('o-new', ['1111', '5002', '5003']),
      ]),
    );
  });
  after(() => close());

  it("places the CREATED order: an empty cell opens, never the placed parcel's", async () => {
    const cellId = await typeAndWaitOpen(locker, '1111');
    assert.notEqual(cellId, '1');
    assert.equal(locker.bus.unlockCount(0, 1), 0, 'the cell with the other parcel stayed shut');
    useDoor(locker, cellId, true);
    assert.equal((await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-new')).cellId, cellId);
  });

  it("once that placement is done, the same code opens the placed parcel's cell for its recipient", async () => {
    assert.equal(await typeAndWaitOpen(locker, '1111'), '1');
    useDoor(locker, '1', false);
    assert.equal((await waitForEvent(locker, 'PICKED_UP', (e) => e.orderId === 'o-placed')).cellId, '1');
  });
});

describe("placement follows the cloud's cell map", () => {
  let locker: SimLocker;
  let close: () => Promise<void>;
  let version = 0;
  const sync = (orders: SyncOrder[], cells?: CellMap, full = true) =>
    locker.agent.applySync({
      ...syncOf(orders, ++version, full),
      ...(full ? {} : { since: version - 1 }),
      ...(cells && { cells }),
    });
  const map = (entries: Array<[number, boolean]>): CellMap =>
    entries.map(([n, isActive]) => ({ cellId: String(n), size: 'M', isActive }));
  const answer = async (code: string) => {
    const from = locker.displayLines.length;
    await locker.typeCode(code);
    return waitForDisplay(locker, /./, from);
  };
  before(async () => {
    // A cloud that cannot be reached: the agent has a cloud, so it waits for the cloud's map.
    ({ locker, close } = await startLocker({
      transport: 'memory',
      cells: numbered([1, 9]),
      agentConfig: { cloud: { mqttUrl: 'mqtt://127.0.0.1:9', username: 'x', password: 'y' } },
    }));
  });
  after(() => close());

  it("a store from before cell maps keeps the config's cells (offline, it must go on) and asks the cloud for a full snapshot", async () => {
    await locker.agent.applySync({
      v: CONTRACT_VERSION,
      version: ++version,
      full: false,
      since: 0,
      upserts: [order('o-0', ['2001', '2002', '2003'])],
      removals: [],
    });
    assert.equal((locker.agent as InProcessAgent).agent.announcedVersion(), 0, 'a full snapshot brings the map');
    const cellId = await typeAndWaitOpen(locker, '2001');
    useDoor(locker, cellId, false); // nothing put in: not placed
    await waitForDisplay(locker, /No parcel detected/);
  });

  it('never opens a cell the cloud does not know: cell 9 stays shut while cell 1 is taken', async () => {
    await sync(
      [order('o-1', ['2001', '2002', '2003']), order('o-2', ['3001', '3002', '3003'])],
      map([
        [1, true],
        [2, true],
      ]),
    );
    assert.ok(
      (locker.agent as InProcessAgent).agent.announcedVersion() > 0,
      'the map is there: its real version from now on',
    );
    assert.equal(await typeAndWaitOpen(locker, '2001'), '1');
    useDoor(locker, '1', true);
    await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-2' || e.orderId === 'o-1');
    assert.match(await answer('3001'), /No free cell/);
    assert.equal(locker.bus.unlockCount(0, 2), 0, 'cell 9 (lock 2) never unlocked');
    assert.ok(
      (locker.agent as InProcessAgent).output.some((l) => /cells 9 are not in the cloud's cell map/.test(l)),
      'the agent says why',
    );
  });

  it('an inactive cell of the map takes no parcel; a cloud without maps leaves the config in use', async () => {
    await sync(
      [order('o-3', ['4001', '4002', '4003'])],
      map([
        [1, true],
        [9, false],
      ]),
    );
    // o-1's parcel is in cell 1 locally (its PLACED not yet acknowledged), cell 9 is off.
    assert.match(await answer('4001'), /No free cell/);
    await sync([order('o-3', ['4001', '4002', '4003'])]); // a full snapshot with no map: an older cloud
    assert.equal(await typeAndWaitOpen(locker, '4001'), '9');
  });
});
