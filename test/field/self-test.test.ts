import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOperator } from '../../cloud/operator/cli.ts';
import type { SelfTestMessage } from '../../shared/mqtt/index.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { startPtyBus, type PtyBus } from './pty-bus.ts';
import { runAgentCli } from './agent-cli.ts';

const GUARD_MS = 15_000;

for (const dialect of DIALECTS) {
  describe(`npm run agent -- self-test over a pseudo-terminal (${dialect.name})`, () => {
    let cloud: TestCloud;
    let bus: PtyBus;
    let lockerId: string;
    let configPath: string;

    const operator = async (...argv: string[]) => {
      const r = await runOperator([...argv, '--json'], {}, cloud.storage);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };

    before(async () => {
      cloud = await startTestCloud(dialect);
      bus = await startPtyBus([0]);
      lockerId = (
        await operator('locker', 'create', '--title', 'Self-test', '--cells', '1:S:0:1,2:M:0:2,3:L:0:3,4:M:0:4')
      ).id;
      const creds = await operator('agent', 'reset', '--locker', lockerId);
      configPath = join(bus.dir, 'config.json');
      writeFileSync(
        configPath,
        JSON.stringify({
          lockerId,
          serial: { device: bus.device, replyTimeoutMs: 200, readRetries: 1, pollIntervalMs: 30 },
          boards: [0],
          cells: [1, 2, 3, 4].map((n) => ({ cellId: String(n), board: 0, lock: n, size: 'M' })),
          keypad: { device: 'stdin' },
          dataDir: join(bus.dir, 'data'),
          timing: { unlockConfirmMs: 800 },
          cloud: {
            mqttUrl: `mqtt://127.0.0.1:${cloud.sync.broker!.port}`,
            username: creds.username,
            password: creds.password,
          },
        }),
      );
    });
    after(async () => {
      await bus.close();
      await cloud.stop();
    });

    /**
     * From shut, working locks with a parcel in cell 4, then `fault`. The technician shuts
     * each door the test says is open (for `stuck`, its switch keeps reading open).
     */
    async function selfTest(
      fault: { jammed?: number; stuck?: number } = {},
    ): Promise<{ code: number | null; report: SelfTestMessage; stderr: string }> {
      for (const lock of bus.boards.get(0)!.locks)
        Object.assign(lock, { closed: true, parcel: false, jammed: false, hookStuck: undefined });
      bus.boards.get(0)!.lock(4).parcel = true;
      if (fault.jammed) bus.boards.get(0)!.lock(fault.jammed).jammed = true;
      const stuck = fault.stuck;
      const res = await runAgentCli(['self-test', '--config', configPath, '--json', '--close-timeout-s', '2'], {
        onStderr(line) {
          const m = /^cell (\d+) is open: close its door now/.exec(line);
          if (!m) return;
          const lock = bus.boards.get(0)!.lock(Number(m[1]));
          lock.closed = true;
          if (Number(m[1]) === stuck) lock.hookStuck = false;
        },
      });
      return { code: res.code, report: JSON.parse(res.stdout) as SelfTestMessage, stderr: res.stderr };
    }

    async function reportInCloud(at: string): Promise<any> {
      const deadline = Date.now() + GUARD_MS;
      for (;;) {
        const status = await operator('locker', 'status', '--id', lockerId);
        if (status.selfTest?.report.at === at) return status;
        if (Date.now() > deadline) throw new Error(`self-test report of ${at} never reached the cloud`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    const outcomes = (r: SelfTestMessage) => r.results.map((x) => `${x.cellId}:${x.outcome}`);

    it('all good: opens each empty cell once, skips the one with a parcel, and the operator sees the report', async () => {
      const { code, report, stderr } = await selfTest();
      assert.equal(code, 0, stderr);
      assert.deepEqual(outcomes(report), ['1:OK', '2:OK', '3:OK', '4:SKIPPED']);
      for (const lock of [1, 2, 3]) assert.equal(bus.sim.unlockCount(0, lock), 1, `lock ${lock} pulsed once`);
      assert.equal(bus.sim.unlockCount(0, 4), 0, 'a cell with a parcel stays shut');
      const status = await reportInCloud(report.at);
      assert.deepEqual(
        status.selfTest.report.results.map((x: any) => x.outcome),
        ['OK', 'OK', 'OK', 'SKIPPED'],
      );
      const text = await runOperator(['locker', 'status', '--id', lockerId], {}, cloud.storage);
      assert.match(text.stdout, /last self-test \(.*empty cells\): no faults/);
    });

    it('one jammed lock: reported JAMMED, the others OK, exit 2, and the cloud shows the fault', async () => {
      const before = bus.sim.unlockCount(0, 2);
      const { code, report } = await selfTest({ jammed: 2 });
      assert.equal(code, 2);
      assert.deepEqual(outcomes(report), ['1:OK', '2:JAMMED', '3:OK', '4:SKIPPED']);
      assert.equal(bus.sim.unlockCount(0, 2) - before, 1, 'a jammed lock is not pulsed again');
      const text = await reportInCloud(report.at).then(() =>
        runOperator(['locker', 'status', '--id', lockerId], {}, cloud.storage),
      );
      assert.match(text.stdout, /1 FAULT\(S\)/);
      assert.match(text.stdout, /2 +0 +2 +JAMMED/);
    });

    it('one stuck sensor: the door was shut but its hook reads open: SENSOR_STUCK', async () => {
      const { code, report } = await selfTest({ stuck: 3 });
      assert.equal(code, 2);
      assert.deepEqual(outcomes(report), ['1:OK', '2:OK', '3:SENSOR_STUCK', '4:SKIPPED']);
      assert.match(report.results[2].detail ?? '', /switch is stuck/);
      await reportInCloud(report.at);
    });
  });
}
