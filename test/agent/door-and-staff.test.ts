import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONTRACT_VERSION } from '../../shared/mqtt/index.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import {
  OffsetClock,
  cellsOf,
  order,
  startLocker,
  syncOf,
  typeAndWaitOpen,
  waitForDisplay,
  waitForEvent,
  waitForHardware,
} from '../helpers/sim-harness.ts';

describe('door left open, empty door, quick hands, staff command, lockout expiry, slow board (in-memory bus)', () => {
  let locker: SimLocker;
  let close: () => Promise<void>;
  const clock = new OffsetClock();
  before(async () => {
    ({ locker, close } = await startLocker({
      transport: 'memory',
      clock,
      cells: cellsOf(['S', 'M', 'M', 'L', 'L']),
      agentConfig: { timing: { doorOpenAlarmMs: 100, wrongCodeLimit: 2, lockoutMs: 60_000 } },
    }));
    await locker.agent.applySync(
      syncOf([
        order('o-open', ['1301', '1302', '1303']),
        order('o-empty', ['1401', '1402', '1403']),
        order('o-staff', ['1501', '1502', '1503']),
        order('o-late', ['1601', '1602', '1603']),
      ]),
    );
  });
  after(() => close());

  it('reports DOOR_LEFT_OPEN once when the door stays open past the timeout, then still records PLACED', async () => {
    const cellId = await typeAndWaitOpen(locker, '1301');
    const alarm = await waitForEvent(locker, 'DOOR_LEFT_OPEN', (e) => e.orderId === 'o-open');
    assert.equal(alarm.cellId, cellId);
    assert.match(await waitForDisplay(locker, /Please close the door/), new RegExp(`cell ${cellId}`));
    locker.setParcel(cellId, true);
    locker.closeDoor(cellId);
    await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-open');
    assert.equal(locker.events.filter((e) => e.type === 'DOOR_LEFT_OPEN' && e.orderId === 'o-open').length, 1);
  });

  it('does not place an order when the door is closed with nothing inside', async () => {
    const from = locker.displayLines.length;
    const cellId = await typeAndWaitOpen(locker, '1401');
    locker.closeDoor(cellId);
    await waitForDisplay(locker, /No parcel detected/, from);
    assert.equal(
      locker.events.some((e) => e.type === 'PLACED' && e.orderId === 'o-empty'),
      false,
    );
    // The order is still CREATED: its DOWN code works again.
    const again = await typeAndWaitOpen(locker, '1401');
    locker.setParcel(again, true);
    locker.closeDoor(again);
    await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-empty');
  });

  it('opens a cell for staff on OPEN_CELL and records SUBTRACTED with the command id, once per command', async () => {
    const cellId = await typeAndWaitOpen(locker, '1501');
    locker.setParcel(cellId, true);
    locker.closeDoor(cellId);
    await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-staff');
    const command = { v: CONTRACT_VERSION, commandId: 'cmd-1', type: 'OPEN_CELL' as const, cellId, orderId: 'o-staff' };
    const response = await locker.agent.command(command);
    assert.equal(response.status, 'ok');
    locker.setParcel(cellId, false);
    locker.closeDoor(cellId);
    const ev = await waitForEvent(locker, 'SUBTRACTED', (e) => e.orderId === 'o-staff');
    assert.equal(ev.commandId, 'cmd-1');
    const unlocks = locker.bus.unlockCount(0, Number(cellId.split('-')[1]));
    assert.deepEqual(await locker.agent.command(command), response, 'a redelivered command gets its first answer');
    assert.equal(locker.bus.unlockCount(0, Number(cellId.split('-')[1])), unlocks, 'and opens nothing again');
  });

  it('refuses OPEN_CELL for an order that is not in that cell', async () => {
    const response = await locker.agent.command({
      v: CONTRACT_VERSION,
      commandId: 'cmd-2',
      type: 'OPEN_CELL',
      cellId: '0-1',
      orderId: 'nope',
    });
    assert.equal(response.status, 'error');
  });

  it('still records PLACED when the door was opened and shut between two status reads', async () => {
    await locker.agent.applySync(syncOf([order('o-quick', ['1701', '1702', '1703'])], 2, false));
    await locker.typeCode('1701');
    // Faster than the agent's poll: fill and shut the door as soon as the hardware opens it.
    const cellId = await waitForHardware(
      'a door to open',
      () => locker.hardwareCells().find((c) => !c.doorClosed)?.cellId,
    );
    locker.setParcel(cellId, true);
    locker.closeDoor(cellId);
    const placed = await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-quick');
    assert.equal(placed.cellId, cellId);
    assert.equal(
      locker.events.some((e) => e.type === 'CELL_FAULT'),
      false,
    );
  });

  it('accepts codes again once the lockout has passed', async () => {
    for (const code of ['0001', '0002']) await locker.typeCode(code);
    await waitForEvent(locker, 'LOCKOUT');
    const from = locker.displayLines.length;
    await locker.typeCode('1601');
    await waitForDisplay(locker, /locked/i, from);
    clock.advance(61_000);
    const cellId = await typeAndWaitOpen(locker, '1601');
    assert.ok(cellId);
  });

  it('works with a slow board that answers within the reply timeout', async () => {
    locker.board(0).replyDelayMs = 50;
    await locker.agent.applySync(syncOf([order('o-slowboard', ['1901', '1902', '1903'])], 3, false));
    const cellId = await typeAndWaitOpen(locker, '1901');
    locker.setParcel(cellId, true);
    locker.closeDoor(cellId);
    assert.equal((await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-slowboard')).cellId, cellId);
    locker.board(0).replyDelayMs = 0;
  });
});
