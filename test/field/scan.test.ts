import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KerongCommand } from '../../shared/protocols/kerong/index.ts';
import { SimBoard } from '../../hardware-sim/board.ts';
import type { ScanReport } from '../../locker-agent/field/scan.ts';
import { startPtyBus, type PtyBus } from './pty-bus.ts';
import { runAgentCli } from './agent-cli.ts';

const scan = (bus: PtyBus, ...extra: string[]) =>
  runAgentCli(['scan', '--device', bus.device, '--timeout-ms', '200', '--retries', '1', ...extra]);

describe('npm run agent -- scan', () => {
  let bus: PtyBus | undefined;
  afterEach(async () => {
    await bus?.close();
    bus = undefined;
  });

  it('lists the boards that answer with their hooks and IR sensors, and a cell map skeleton, without unlocking', async () => {
    bus = await startPtyBus([0, 2]);
    bus.boards.get(0)!.lock(3).closed = false;
    bus.boards.get(2)!.lock(16).parcel = true;
    const res = await scan(bus, '--json');
    assert.equal(res.code, 0, res.stderr);
    const report = JSON.parse(res.stdout) as ScanReport;
    assert.deepEqual(
      report.boards.filter((b) => b.verdict === 'ANSWERS').map((b) => b.address),
      [0, 2],
    );
    assert.equal(report.boards.filter((b) => b.verdict === 'SILENT').length, 14);
    const b0 = report.boards.find((b) => b.address === 0)!;
    assert.equal(b0.closed?.[2], false);
    assert.equal(b0.closed?.filter(Boolean).length, 15);
    assert.equal(report.boards.find((b) => b.address === 2)!.parcel?.[15], true);
    assert.deepEqual(report.skeleton.boards, [0, 2]);
    assert.equal(report.skeleton.cells.length, 32);
    assert.deepEqual(report.skeleton.cells[16], { cellId: '17', board: 2, lock: 1, size: 'M' });
    assert.ok(bus.sim.requests.length >= 16);
    assert.equal(bus.sim.requests.filter((r) => r.cmd !== KerongCommand.ReadStatus).length, 0, 'only status reads');
  });

  it('leaves a silent board out and prints the table a technician reads', async () => {
    bus = await startPtyBus([0, 1, 3]);
    bus.boards.get(1)!.silent = true;
    const res = await scan(bus);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /2 board\(s\) answer: 0, 3/);
    assert.match(res.stdout, /board 3\n {2}lock +1 +2 +3/);
    const skeleton = JSON.parse(res.stdout.slice(res.stdout.indexOf('{\n')));
    assert.deepEqual(skeleton.boards, [0, 3]);
    assert.doesNotMatch(res.stdout, /^board 1$/m);
  });

  it('reports two boards set to the same address as garbled, not as one board, and exits 1', async () => {
    bus = await startPtyBus([0, 4]);
    const twin = new SimBoard({ address: 4, unlockTimeMs: 10 });
    twin.lock(1).closed = false;
    bus.sim.clashing.set(4, twin);
    const res = await scan(bus, '--json');
    assert.equal(res.code, 1);
    const report = JSON.parse(res.stdout) as ScanReport;
    const four = report.boards.find((b) => b.address === 4)!;
    assert.equal(four.verdict, 'GARBLED');
    assert.ok(four.checksumErrors > 0);
    assert.deepEqual(report.skeleton.boards, [0]);
  });

  it('says the agent may be holding the port when it is locked', async () => {
    bus = await startPtyBus([0]);
    await bus.openAgentEnd();
    const res = await scan(bus);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Cannot lock port; is the agent running\? sudo systemctl stop locker-agent/);
  });

  it('says plainly when the device does not exist', async () => {
    const res = await runAgentCli(['scan', '--device', '/dev/does-not-exist-42']);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /cannot open \/dev\/does-not-exist-42/);
  });
});
