import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runOperator } from '../../cloud/operator/cli.ts';
import { topics, type LockerEvent } from '../../shared/mqtt/index.ts';
import type { InProcessAgent } from '../../hardware-sim/agent-handle.ts';
import { SimLocker } from '../../hardware-sim/locker.ts';
import type { LockerAlarmKind } from '../../cloud/sync/types.ts';
import { healthGauges } from '../../cloud/sync/field-reports.ts';
import { openAlarmCounts } from '../../cloud/storage/locker-alarm-queries.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { tempDir, typeAndWaitOpen } from '../helpers/sim-harness.ts';
import {
  CELLS,
  codesOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';

const DOOR_OPEN_ALARM_MS = 400;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] a locker in the field tells the cloud: tamper, door left open, health`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    const dir = tempDir('field-locker');

    before(async () => {
      w = await startSyncWorld(dialect);
      locker = await w.newLocker();
      sim = new SimLocker({
        id: locker.id,
        boards: [0],
        cells: CELLS.map((x) => ({ cellId: String(x.number), board: x.board, lock: x.lock, size: x.size })),
        dir: dir.path,
        transport: 'pty',
        agentMode: 'inprocess',
        unlockTimeMs: 20,
        agentConfig: {
          timing: { doorOpenAlarmMs: DOOR_OPEN_ALARM_MS },
          cloud: {
            mqttUrl: w.mqttUrl,
            username: locker.agent.username,
            password: locker.agent.password,
            eventRetryMs: 1_000,
            reconnectMaxMs: 1_000,
            healthIntervalMs: 60_000,
          },
        },
      });
      await sim.start();
      await untilOnline(w, locker.id);
    });
    after(async () => {
      await sim.close();
      await w.close();
      dir.remove();
    });

    const agent = () => (sim.agent as InProcessAgent).agent;
    const eventRows = (type: string) =>
      w.db
        .selectFrom('locker_event')
        .selectAll()
        .where('postomatId', '=', locker.id)
        .where('type', '=', type)
        .execute();
    const alarms = (kind: LockerAlarmKind) =>
      w.db
        .selectFrom('locker_alarm')
        .selectAll()
        .where('postomatId', '=', locker.id)
        .where('kind', '=', kind)
        .execute();
    const outboxEmpty = () => until('outbox acknowledged', () => agent().store.outboxSize() === 0 || undefined);

    it('a door forced open becomes one TAMPER event and alarm, then one DOOR_LEFT_OPEN, even when delivered twice', async () => {
      sim.forceDoor('5');
      const [tamper] = await until('TAMPER alarm', async () =>
        (await alarms('TAMPER')).length ? alarms('TAMPER') : undefined,
      );
      assert.equal(tamper.cellId, '5');
      assert.match(tamper.detail, /cell 5 opened without a command/);
      const [left] = await until('DOOR_LEFT_OPEN alarm', async () =>
        (await alarms('DOOR_LEFT_OPEN')).length ? alarms('DOOR_LEFT_OPEN') : undefined,
      );
      assert.equal(left.cellId, '5');
      sim.closeDoor('5');
      await outboxEmpty();

      // QoS 1 may deliver an event again (and the agent resends until acked): still once.
      const sent = sim.events.filter((e) => e.type === 'TAMPER' || (e.type === 'DOOR_LEFT_OPEN' && e.cellId === '5'));
      assert.equal(sent.length, 2);
      for (const e of sent)
        w.cloud.sync.inbound.handle(topics.events(locker.id), Buffer.from(JSON.stringify(e satisfies LockerEvent)));
      await w.cloud.sync.inbound.idle();
      assert.equal((await eventRows('TAMPER')).length, 1);
      assert.equal((await alarms('TAMPER')).length, 1);
      assert.equal((await alarms('DOOR_LEFT_OPEN')).length, 1);

      const status = await runOperator(['locker', 'status', '--id', locker.id], {}, w.cloud.storage);
      assert.match(status.stdout, /TAMPER +- +5 +the door of cell 5 opened without a command/);
    });

    it('a door opened by a code is no tamper; left open past its time it reaches the cloud once as DOOR_LEFT_OPEN with its order', async () => {
      const order = await w.createOrder(locker.id);
      const codes = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o !== undefined);
      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      const alarm = await until('DOOR_LEFT_OPEN of the order', async () =>
        (await alarms('DOOR_LEFT_OPEN')).find((a) => a.orderId === order.id),
      );
      assert.equal(alarm.cellId, cell);
      sim.setParcel(cell, true);
      sim.closeDoor(cell);
      await until('PLACED stored', async () => (await eventRows('PLACED')).find((e) => e.orderId === order.id));
      await outboxEmpty();
      assert.equal((await alarms('DOOR_LEFT_OPEN')).filter((a) => a.orderId === order.id).length, 1);
      assert.equal((await eventRows('TAMPER')).length, 1, 'only the forced door of the test before');
    });

    it('publishes its health (retained): boards with counters, outbox, store, uptime; a silent board is an alarm until it answers', async () => {
      const health = await until(
        'health stored',
        async () =>
          await w.db.selectFrom('locker_health').selectAll().where('postomatId', '=', locker.id).executeTakeFirst(),
      );
      const report = JSON.parse(health.report);
      assert.equal(report.boards.length, 1);
      assert.equal(report.boards[0].board, 0);
      assert.equal(report.boards[0].online, true);
      assert.ok(report.storeBytes > 0);
      assert.equal(typeof report.outboxSize, 'number');

      sim.board(0).silent = true;
      const silent = await until('BOARD_SILENT alarm', async () =>
        (await alarms('BOARD_SILENT')).find((a) => a.resolvedAt === null),
      );
      assert.match(silent.detail, /board\(s\) 0 do not answer/);
      const status = await runOperator(['locker', 'status', '--id', locker.id, '--json'], {}, w.cloud.storage);
      const json = JSON.parse(status.stdout);
      assert.equal(json.health.report.boards[0].online, false);
      assert.ok(json.health.report.boards[0].timeouts > 0);
      const gauges = (await healthGauges(w.db)).find((g) => g.lockerId === locker.id);
      assert.equal(gauges?.boardsOffline, 1);
      assert.ok((gauges?.boardTimeouts ?? 0) > 0);
      assert.equal((await openAlarmCounts(w.db)).BOARD_SILENT, 1);

      sim.board(0).silent = false;
      await until('BOARD_SILENT resolved', async () =>
        (await alarms('BOARD_SILENT')).every((a) => a.resolvedAt !== null) ? true : undefined,
      );
    });

    it('drops health and self-test messages outside their bounds, keeping the last good one', async () => {
      const stored = async () =>
        (
          await w.db
            .selectFrom('locker_health')
            .select('report')
            .where('postomatId', '=', locker.id)
            .executeTakeFirstOrThrow()
        ).report;
      const before = await stored();
      const good = agent().healthMessage();
      const hostile = [
        {
          ...good,
          boards: Array.from({ length: 17 }, (_, board) => ({
            board,
            online: true,
            timeouts: 0,
            checksumErrors: 0,
            lastAnswerAt: null,
          })),
        },
        { ...good, agentVersion: 'x\u0007y' },
        { ...good, outboxSize: -1 },
      ];
      for (const h of hostile) w.cloud.sync.inbound.handle(topics.health(locker.id), Buffer.from(JSON.stringify(h)));
      w.cloud.sync.inbound.handle(
        topics.selftest(locker.id),
        Buffer.from(
          JSON.stringify({
            v: '1.0',
            at: good.at,
            agentVersion: '1',
            all: false,
            results: [{ cellId: '1', board: 0, lock: 17, outcome: 'OK' }],
          }),
        ),
      );
      await w.cloud.sync.inbound.idle();
      assert.equal(await stored(), before);
      assert.equal(
        await w.db
          .selectFrom('locker_self_test')
          .select('postomatId')
          .where('postomatId', '=', locker.id)
          .executeTakeFirst(),
        undefined,
      );
    });
  });
}
