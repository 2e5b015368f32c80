import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import {
  cellsOf,
  order,
  startLocker,
  syncOf,
  typeAndWaitOpen,
  waitForEvent,
  waitForHardware,
} from '../helpers/sim-harness.ts';

/**
 * The agent is killed (SIGKILL, no cleanup) after it unlocked a cell and before the door was
 * closed. The intent it wrote before the unlock frame lets the restarted agent finish the job
 * from the board status: exactly one event, none lost, none doubled.
 */
describe('agent killed between unlock and door close', () => {
  let locker: SimLocker;
  let close: () => Promise<void>;
  before(async () => {
    ({ locker, close } = await startLocker({ transport: 'pty', agentMode: 'child', cells: cellsOf(['S', 'S']) }));
    await locker.agent.applySync(
      syncOf([order('o-a', ['1101', '1102', '1103']), order('o-b', ['1201', '1202', '1203'])]),
    );
  });
  after(() => close());

  const placedFor = async (orderId: string) =>
    (await locker.agent.pendingEvents()).filter((e) => e.type === 'PLACED' && e.orderId === orderId);

  it('records PLACED once when the door was closed while the agent was dead', async () => {
    const cellId = await typeAndWaitOpen(locker, '1101');
    const pid = locker.agent.pid;
    await locker.agent.kill();
    locker.setParcel(cellId, true);
    locker.closeDoor(cellId);
    await locker.restartAgent();
    assert.notEqual(locker.agent.pid, pid, 'a new agent process');
    const placed = await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-a');
    assert.equal(placed.cellId, cellId);
    assert.equal(locker.bus.unlockCount(0, Number(cellId.split('-')[1])), 1, 'the restart did not unlock again');
    // One more restart must not record it a second time.
    await locker.restartAgent({ kill: true });
    const placedEvents = await placedFor('o-a');
    assert.equal(placedEvents.length, 1);
    assert.equal(placedEvents[0].eventId, placed.eventId);
  });

  it('records PLACED once when the door is closed after the restart', async () => {
    const cellId = await typeAndWaitOpen(locker, '1201');
    await locker.agent.kill();
    await locker.restartAgent();
    locker.setParcel(cellId, true);
    locker.closeDoor(cellId);
    await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-b');
    assert.equal((await placedFor('o-b')).length, 1);
  });

  it('records PICKED_UP once when the recipient emptied the cell while the agent was dead', async () => {
    const placed = (await placedFor('o-a'))[0];
    assert.equal(await typeAndWaitOpen(locker, '1102'), placed.cellId);
    await locker.agent.kill();
    locker.setParcel(placed.cellId!, false);
    locker.closeDoor(placed.cellId!);
    await locker.restartAgent();
    await waitForEvent(locker, 'PICKED_UP', (e) => e.orderId === 'o-a');
    await locker.restartAgent({ kill: true });
    const picked = (await locker.agent.pendingEvents()).filter((e) => e.type === 'PICKED_UP' && e.orderId === 'o-a');
    assert.equal(picked.length, 1);
  });

  it('keeps event seq increasing across restarts', async () => {
    const seqs = (await locker.agent.pendingEvents()).map((e) => e.seq);
    assert.ok(seqs.length >= 2);
    assert.deepEqual(
      [...seqs].sort((a, b) => a - b),
      seqs,
    );
    assert.equal(new Set(seqs).size, seqs.length);
  });
});

describe('agent restarted before the lock has released', () => {
  let locker: SimLocker;
  let close: () => Promise<void>;
  before(async () => {
    ({ locker, close } = await startLocker({ transport: 'memory', unlockTimeMs: 400, cells: cellsOf(['S']) }));
    await locker.agent.applySync(syncOf([order('o-slow', ['1801', '1802', '1803'])]));
  });
  after(() => close());

  it('does not read the still-closed door as "nothing happened": PLACED once the courier is done', async () => {
    const unlockSent = new Promise<void>((resolve) => locker.bus.onRequest.push((r) => r.cmd === 0x31 && resolve()));
    await locker.typeCode('1801');
    await unlockSent;
    await locker.restartAgent();
    await waitForHardware('door 0-1 open', () => (locker.hardwareCells()[0].doorClosed ? undefined : true));
    locker.setParcel('0-1', true);
    locker.closeDoor('0-1');
    const placed = await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-slow');
    assert.equal(placed.cellId, '0-1');
  });
});
