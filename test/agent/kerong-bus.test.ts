import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KerongCommand, type KerongRequest } from '../../shared/protocols/kerong/index.ts';
import { KerongBus } from '../../locker-agent/boards/kerong-bus.ts';
import { systemClock } from '../../locker-agent/clock.ts';
import { SimBoard } from '../../hardware-sim/board.ts';
import { SimBus } from '../../hardware-sim/bus.ts';
import { createLinkPair, type MemoryLink } from '../../hardware-sim/memory-link.ts';

function setup(addresses: number[], opts: { retries?: number; timeout?: number } = {}) {
  const [agentEnd, simEnd] = createLinkPair();
  const boards = new Map(addresses.map((a) => [a, new SimBoard({ address: a, unlockTimeMs: 5 })]));
  const sim = new SimBus(simEnd, boards);
  sim.attach();
  const calls: string[] = [];
  const link: MemoryLink = agentEnd;
  const flush = link.flushInput.bind(link);
  link.flushInput = async () => {
    calls.push('flush');
    await flush();
  };
  link.onWrite.push(() => calls.push('write'));
  const bus = new KerongBus(link, systemClock, {
    boards: addresses,
    replyTimeoutMs: opts.timeout ?? 30,
    readRetries: opts.retries ?? 2,
    pollIntervalMs: 10,
  });
  bus.attach();
  return { bus, sim, boards, calls };
}

const describeReq = (r: KerongRequest) =>
  `${r.cmd === KerongCommand.Unlock ? 'unlock' : 'status'} ${r.board}/${r.lock}`;

describe('KerongBus driver', () => {
  let bus: KerongBus | undefined;
  afterEach(async () => {
    await bus?.stop();
    bus = undefined;
  });

  it('reads a board status with lock 1 from bit 0 of the reply', async () => {
    const s = setup([0]);
    bus = s.bus;
    s.boards.get(0)!.lock(3).parcel = true;
    s.boards.get(0)!.lock(1).closed = false;
    const status = await s.bus.readStatus(0);
    assert.equal(status?.closed[0], false);
    assert.equal(status?.parcel[2], true);
    assert.equal(status?.closed[1], true);
  });

  it('runs one transaction at a time and serves a queued unlock before queued status reads', async () => {
    const s = setup([0, 1, 2]);
    bus = s.bus;
    const reads = [s.bus.readStatus(0), s.bus.readStatus(1), s.bus.readStatus(2)];
    const unlock = s.bus.unlock(2, 5);
    await Promise.all([...reads, unlock]);
    assert.deepEqual(s.sim.requests.map(describeReq), ['status 0/1', 'unlock 2/5', 'status 1/1', 'status 2/1']);
  });

  it('clears the input before every command', async () => {
    const s = setup([0]);
    bus = s.bus;
    await s.bus.readStatus(0);
    await s.bus.unlock(0, 1);
    assert.deepEqual(s.calls, ['flush', 'write', 'flush', 'write']);
  });

  it('retries a status read a bounded number of times, then reports the board offline', async () => {
    const s = setup([0], { retries: 2 });
    bus = s.bus;
    s.boards.get(0)!.silent = true;
    const offline: number[] = [];
    s.bus.on('boardOffline', (b) => offline.push(b));
    assert.equal(await s.bus.readStatus(0), undefined);
    assert.equal(s.sim.requests.length, 3);
    assert.deepEqual(offline, [0]);
    assert.equal(s.bus.isOnline(0), false);
    assert.equal(s.bus.lastStatus(0), undefined, 'no stale "closed" for a silent board');
  });

  it('never repeats an unlock the board did not answer', async () => {
    const s = setup([0], { retries: 2 });
    bus = s.bus;
    s.boards.get(0)!.silent = true;
    const result = await s.bus.unlock(0, 4);
    assert.deepEqual(result, { ok: false, reason: 'NO_REPLY' });
    assert.equal(s.sim.unlockCount(0, 4), 1);
  });

  it('reports a board online again when it answers after being silent', async () => {
    const s = setup([0]);
    bus = s.bus;
    s.boards.get(0)!.silent = true;
    await s.bus.readStatus(0);
    const online: number[] = [];
    s.bus.on('boardOnline', (b) => online.push(b));
    s.boards.get(0)!.silent = false;
    assert.ok(await s.bus.readStatus(0));
    assert.deepEqual(online, [0]);
  });

  it('waits for a slow board within the reply timeout', async () => {
    const s = setup([0], { timeout: 200 });
    bus = s.bus;
    s.boards.get(0)!.replyDelayMs = 20;
    assert.ok(await s.bus.readStatus(0));
    assert.equal(s.sim.requests.length, 1);
  });

  it('polls every board in the background once started', async () => {
    const s = setup([0, 3]);
    bus = s.bus;
    const seen = new Set<number>();
    await new Promise<void>((resolve) => {
      s.bus.on('status', (st) => {
        seen.add(st.board);
        if (seen.size === 2) resolve();
      });
      s.bus.start();
    });
    assert.deepEqual([...seen].sort(), [0, 3]);
  });
});
