import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KerongBus } from '../../locker-agent/boards/kerong-bus.ts';
import { systemClock } from '../../locker-agent/clock.ts';
import { MAX_BOARDS_PER_BUS } from '../../shared/protocols/kerong/index.ts';
import { startPtyBus, type PtyBus } from './pty-bus.ts';

const ALL = Array.from({ length: MAX_BOARDS_PER_BUS }, (_, i) => i);

async function driverOn(bus: PtyBus, boards: number[], frameGapMs: number, readRetries = 0): Promise<KerongBus> {
  const driver = new KerongBus(await bus.openAgentEnd(), systemClock, {
    boards,
    replyTimeoutMs: 300,
    readRetries,
    pollIntervalMs: 50,
    frameGapMs,
  });
  driver.attach();
  return driver;
}

describe('Kerong bus as in the field, over a pseudo-terminal', () => {
  let bus: PtyBus | undefined;
  afterEach(async () => {
    await bus?.close();
    bus = undefined;
  });

  it('reads all 16 boards a bus can address, each one from its own reply', async () => {
    bus = await startPtyBus(ALL);
    for (const a of ALL) bus.boards.get(a)!.lock((a % 16) + 1).parcel = true;
    const driver = await driverOn(bus, ALL, 2);
    for (const a of ALL) {
      const status = await driver.readStatus(a);
      assert.equal(status?.board, a);
      assert.equal(status?.parcel[a % 16], true, `board ${a} lock ${(a % 16) + 1}`);
      assert.equal(status?.parcel.filter(Boolean).length, 1);
    }
    assert.deepEqual(
      driver.boardCounters().map((c) => [c.board, c.timeouts, c.checksumErrors]),
      ALL.map((a) => [a, 0, 0]),
    );
  });

  it('keeps a gap between frames so a board still turning its line around hears the next request', async () => {
    bus = await startPtyBus([0, 1]);
    bus.sim.turnaroundMs = 30;
    const driver = await driverOn(bus, [0, 1], 60);
    for (let i = 0; i < 3; i++)
      for (const a of [0, 1]) assert.ok(await driver.readStatus(a), `read ${i} of board ${a}`);
    assert.deepEqual(
      driver.boardCounters().map((c) => c.timeouts),
      [0, 0],
    );
  });

  it('without a gap the request after a reply is missed and counted as a timeout of the board asked', async () => {
    bus = await startPtyBus([0, 1]);
    bus.sim.turnaroundMs = 2000;
    const driver = await driverOn(bus, [0, 1], 0);
    assert.ok(await driver.readStatus(0));
    assert.equal(await driver.readStatus(1), undefined);
    assert.deepEqual(
      driver.boardCounters().map((c) => [c.board, c.timeouts]),
      [
        [0, 0],
        [1, 1],
      ],
    );
  });

  it('counts replies with a bad checksum against the board that was asked, and reports it offline', async () => {
    bus = await startPtyBus([0, 5]);
    bus.boards.get(5)!.corruptReplies = true;
    const driver = await driverOn(bus, [0, 5], 2, 2);
    const offline: number[] = [];
    driver.on('boardOffline', (b) => offline.push(b));
    assert.ok(await driver.readStatus(0));
    assert.equal(await driver.readStatus(5), undefined);
    const counters = new Map(driver.boardCounters().map((c) => [c.board, c]));
    assert.equal(counters.get(5)?.checksumErrors, 3, 'one per attempt');
    assert.equal(counters.get(5)?.timeouts, 3);
    assert.equal(counters.get(0)?.checksumErrors, 0);
    assert.deepEqual(offline, [5]);
  });
});
