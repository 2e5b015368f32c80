import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SimLocker, SimLockerOptions } from '../../hardware-sim/locker.ts';
import {
  cellsOf,
  order,
  startLocker,
  syncOf,
  typeAndWaitOpen,
  waitForDisplay,
  waitForEvent,
} from '../helpers/sim-harness.ts';

type Variant = Pick<SimLockerOptions, 'transport' | 'agentMode'>;

/** Hardware hand: put the parcel in (or take it out) and shut the door. */
function useDoor(locker: SimLocker, cellId: string, parcel: boolean): void {
  locker.setParcel(cellId, parcel);
  locker.closeDoor(cellId);
}

/** The behaviours of issue 4, run against the simulator over one transport. */
export function lockerScenarios(label: string, variant: Variant): void {
  describe(`${label}: placement, pickup, payment and subtraction`, () => {
    let locker: SimLocker;
    let close: () => Promise<void>;
    before(async () => {
      ({ locker, close } = await startLocker({ ...variant, cells: cellsOf(['L', 'S', 'M']) }));
      await locker.agent.applySync(
        syncOf([
          order('o-any', ['1001', '1002', '1003']),
          order('o-unpaid', ['2001', '2002', '2003'], { notPaidAmount: 1500 }),
          order('o-medium', ['3001', '3002', '3003'], { cellSize: 'M' }),
          order('o-xl', ['4001', '4002', '4003'], { cellSize: 'XL' }),
        ]),
      );
    });
    after(() => close());

    it('places a parcel with the DOWN code into the smallest free cell and records PLACED', async () => {
      const cellId = await typeAndWaitOpen(locker, '1001');
      assert.equal(cellId, '0-2', 'the S cell is the smallest that fits an order without a size');
      useDoor(locker, cellId, true);
      const placed = await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-any');
      assert.equal(placed.cellId, '0-2');
    });

    it('opens the same cell on the UP code and records PICKED_UP once the parcel is taken', async () => {
      assert.equal(await typeAndWaitOpen(locker, '1002'), '0-2');
      useDoor(locker, '0-2', false);
      const picked = await waitForEvent(locker, 'PICKED_UP', (e) => e.orderId === 'o-any');
      assert.equal(picked.cellId, '0-2');
    });

    it('places an order asking for M into the M cell, not a larger one', async () => {
      assert.equal(await typeAndWaitOpen(locker, '3001'), '0-3');
      useDoor(locker, '0-3', true);
      assert.equal((await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-medium')).cellId, '0-3');
    });

    it('refuses the UP code of an order with an unpaid remainder and opens nothing', async () => {
      const cellId = await typeAndWaitOpen(locker, '2001');
      useDoor(locker, cellId, true);
      await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-unpaid');
      const unlocksBefore = locker.bus.requests.filter((r) => r.cmd === 0x31).length;
      const from = locker.displayLines.length;
      await locker.typeCode('2002');
      assert.match(await waitForDisplay(locker, /not paid/i, from), /15\.00/);
      const rejected = await waitForEvent(locker, 'CODE_REJECTED', (e) => e.orderId === 'o-unpaid');
      assert.equal(rejected.reason, 'NOT_PAID');
      assert.equal(locker.bus.requests.filter((r) => r.cmd === 0x31).length, unlocksBefore);
      assert.ok(locker.hardwareCells().every((c) => c.doorClosed));
    });

    it('opens the cell on the SUBTRACT code and records SUBTRACTED once emptied', async () => {
      const cellId = await typeAndWaitOpen(locker, '2003');
      useDoor(locker, cellId, false);
      const ev = await waitForEvent(locker, 'SUBTRACTED', (e) => e.orderId === 'o-unpaid');
      assert.equal(ev.cellId, cellId);
    });

    it('says there is no free cell when none of the needed size is free', async () => {
      const from = locker.displayLines.length;
      await locker.typeCode('4001');
      assert.match(await waitForDisplay(locker, /No free cell/, from), /size XL/);
      assert.equal((await waitForEvent(locker, 'CODE_REJECTED', (e) => e.orderId === 'o-xl')).reason, 'NO_FREE_CELL');
      assert.ok(locker.hardwareCells().every((c) => c.doorClosed));
    });
  });

  describe(`${label}: wrong codes`, () => {
    let locker: SimLocker;
    let close: () => Promise<void>;
    before(async () => {
      ({ locker, close } = await startLocker({
        ...variant,
        cells: cellsOf(['S']),
        agentConfig: { timing: { wrongCodeLimit: 3, lockoutMs: 60_000 } },
      }));
      await locker.agent.applySync(syncOf([order('o-1', ['5001', '5002', '5003'])]));
    });
    after(() => close());

    it('rejects unknown codes without revealing them, then locks the keypad after the limit', async () => {
      for (const code of ['9911', '9922', '9933']) await locker.typeCode(code);
      const lockout = await waitForEvent(locker, 'LOCKOUT');
      assert.ok(lockout.until && Date.parse(lockout.until) > Date.parse(lockout.at));
      const rejected = locker.events.filter((e) => e.type === 'CODE_REJECTED');
      assert.deepEqual(
        rejected.map((e) => e.maskedCode),
        ['****', '****', '****'],
      );
      assert.ok(!JSON.stringify(locker.events).includes('9911'));
    });

    it('ignores even a valid code while locked out', async () => {
      const from = locker.displayLines.length;
      await locker.typeCode('5001');
      await waitForDisplay(locker, /locked/i, from);
      assert.equal(locker.bus.unlockCount(0, 1), 0);
    });
  });

  describe(`${label}: faults`, () => {
    let locker: SimLocker;
    let close: () => Promise<void>;
    before(async () => {
      const cells = [...cellsOf(['S', 'S']), ...cellsOf(['S'], 1)];
      ({ locker, close } = await startLocker({ ...variant, cells }));
      await locker.agent.applySync(
        syncOf([
          order('o-jam', ['6001', '6002', '6003']),
          order('o-silent', ['7001', '7002', '7003'], { status: 'DELIVERED', cellId: '1-1' }),
          order('o-none', ['8001', '8002', '8003']),
        ]),
      );
      locker.board(1).lock(1).parcel = true;
    });
    after(() => close());

    it('reports a jammed lock as CELL_FAULT and places the parcel in another cell', async () => {
      locker.setJammed('0-1', true);
      const cellId = await typeAndWaitOpen(locker, '6001');
      const fault = await waitForEvent(locker, 'CELL_FAULT', (e) => e.cellId === '0-1');
      assert.equal(fault.fault, 'JAMMED');
      assert.notEqual(cellId, '0-1');
      useDoor(locker, cellId, true);
      assert.equal((await waitForEvent(locker, 'PLACED', (e) => e.orderId === 'o-jam')).cellId, cellId);
      const cells = await locker.agent.cells();
      assert.equal(cells.cells.find((c) => c.cellId === '0-1')?.state, 'BROKEN');
    });

    it('marks the cells of a silent board unknown, not closed', async () => {
      locker.board(1).silent = true;
      let state: string | undefined;
      for (let i = 0; i < 200 && state !== 'UNKNOWN'; i++) {
        state = (await locker.agent.cells()).cells.find((c) => c.cellId === '1-1')?.state;
        if (state !== 'UNKNOWN') await new Promise((r) => setTimeout(r, 20));
      }
      const report = (await locker.agent.cells()).cells.find((c) => c.cellId === '1-1');
      assert.equal(report?.state, 'UNKNOWN');
      assert.equal(report?.lockClosed, null);
    });

    it('does not place into an unknown cell: no free cell is left', async () => {
      const from = locker.displayLines.length;
      await locker.typeCode('8001');
      await waitForDisplay(locker, /No free cell/, from);
      assert.equal(locker.bus.unlockCount(1, 1), 0);
    });

    it('reports CELL_FAULT BOARD_SILENT when the board does not answer an unlock', async () => {
      await locker.typeCode('7002');
      const fault = await waitForEvent(locker, 'CELL_FAULT', (e) => e.cellId === '1-1');
      assert.equal(fault.fault, 'BOARD_SILENT');
      assert.equal(locker.bus.unlockCount(1, 1), 1, 'the unlock is never repeated on its own');
    });

    it('settles the pickup from the board once it answers again: parcel still inside, nothing recorded', async () => {
      const from = locker.displayLines.length;
      locker.board(1).silent = false;
      await waitForDisplay(locker, /still in cell 1-1/, from);
      assert.equal(
        locker.events.some((e) => e.type === 'PICKED_UP'),
        false,
      );
      // The recipient's code works again.
      assert.equal(await typeAndWaitOpen(locker, '7002'), '1-1');
      useDoor(locker, '1-1', false);
      assert.equal((await waitForEvent(locker, 'PICKED_UP', (e) => e.orderId === 'o-silent')).cellId, '1-1');
    });
  });
}
