/**
 * What a locker's own credentials can send once logged in, tried as an attacker (or a broken
 * device) would: forged and skewed times, ids, versions and lists beyond the contract. The
 * locker must never be locked out, and nothing oversized may be stored, acknowledged or logged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, MQTT_LIMITS, topics, type CellsMessage } from '../../shared/mqtt/index.ts';
import { createLogger } from '../../cloud/logger.ts';
import { recordCells, recordConnection } from '../../cloud/sync/link-state.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import { AGENT_VERSION } from '../../locker-agent/agent.ts';
import { openTestStorage } from '../helpers/storage.ts';
import { ManualClock } from '../../shared/clock.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { SyncPublisher } from '../../cloud/sync/publisher.ts';
import { InboundMessages, MAX_PENDING_PER_LOCKER } from '../../cloud/sync/inbound.ts';
import { createUnitOfWork } from '../../cloud/consequences.ts';
import {
  codesOf,
  link,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';

const FORGED_AT = '2030-01-01T00:00:00.000Z';

async function lockerClient(w: SyncWorld, locker: CloudLocker) {
  return mqtt.connectAsync(w.mqttUrl, {
    clientId: `locker-${locker.id}`,
    username: locker.agent.username,
    password: locker.agent.password,
    reconnectPeriod: 0,
  });
}

const connection = (over: Record<string, unknown> = {}) => ({
  v: CONTRACT_VERSION,
  online: true,
  agentVersion: 'hostile',
  syncVersion: 0,
  at: new Date().toISOString(),
  ...over,
});

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] times from a locker`, () => {
    let w: SyncWorld;
    before(async () => {
      w = await startSyncWorld(dialect);
    });
    after(() => w.close());

    it('a connection message forged for 2030 locks nothing out: the locker comes back, catches up, and goes offline and online again', async () => {
      const locker = await w.newLocker();
      const sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);

      // The locker's own credentials, while its agent is away: "offline", dated years ahead.
      const forger = await lockerClient(w, locker);
      await forger.publishAsync(
        topics.connection(locker.id),
        JSON.stringify(connection({ online: false, agentVersion: 'forged', at: FORGED_AT })),
        { qos: 1, retain: true },
      );
      const forged = await until('forged message handled', async () =>
        (await link(w.db, locker.id))?.agentVersion === 'forged' ? link(w.db, locker.id) : undefined,
      );
      assert.ok(
        forged!.connectionAt! <= new Date().toISOString(),
        `a device time is kept no later than the cloud's clock (${forged!.connectionAt})`,
      );
      await forger.endAsync();

      // An order made while the agent is away: its delta is published into the void.
      const order = await w.createOrder(locker.id);
      await w.cloud.sync.publisher.tick();
      await sim.agent.setNetwork(true);
      await untilOnline(w, locker.id);
      assert.equal((await link(w.db, locker.id))?.agentVersion, AGENT_VERSION);
      const codes = await codesOf(w, order.id);
      await untilAgent(
        sim,
        order.id,
        'the order reached the locker through its announcement',
        (o) => o?.codes.DOWN === codes.DOWN,
      );
      assert.match(await typeAndWaitOpen(sim, codes.DOWN), /^[1-8]$/);

      // Its Last Will still marks it offline, and it comes back again.
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      await sim.agent.setNetwork(true);
      await untilOnline(w, locker.id);
    });

    it('messages apply in the order received; only a Last Will of an earlier connection is told by its time', async () => {
      const { id } = await w.newLocker();
      const now = new Date();
      const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
      const msg = (online: boolean, at: string) =>
        ({ v: CONTRACT_VERSION, online, agentVersion: 't', syncVersion: 0, at }) as const;
      assert.equal(await recordConnection(w.db, id, msg(true, ago(60_000)), now), true);
      assert.equal(
        await recordConnection(w.db, id, msg(false, ago(120_000)), now),
        false,
        'the Will of the connection before',
      );
      assert.equal((await link(w.db, id))?.online, 1);
      assert.equal(await recordConnection(w.db, id, msg(false, ago(60_000)), now), true, "this connection's Will");
      // A clock years ahead, then years behind: each announcement and its Will take effect.
      assert.equal(await recordConnection(w.db, id, msg(true, FORGED_AT), now), true);
      assert.equal((await link(w.db, id))?.connectionAt, now.toISOString());
      const later = new Date(now.getTime() + 1_000);
      assert.equal(await recordConnection(w.db, id, msg(false, FORGED_AT), later), true);
      assert.equal(await recordConnection(w.db, id, msg(true, '2016-01-01T00:00:00.000Z'), later), true);
      assert.equal((await link(w.db, id))?.online, 1);
      assert.equal(await recordConnection(w.db, id, msg(false, '2016-01-01T00:00:00.000Z'), later), true);
      assert.equal((await link(w.db, id))?.online, 0);
    });
  });

  describe(`[${dialect.name}] sizes from a locker`, () => {
    let w: SyncWorld;
    const lines: string[] = [];
    before(async () => {
      w = await startSyncWorld(dialect, { logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }) });
    });
    after(() => w.close());

    it('ids, versions, counters and texts beyond the contract are dropped: nothing stored, acknowledged or logged in full', async () => {
      const locker = await w.newLocker();
      const client = await lockerClient(w, locker);
      const acks: string[] = [];
      client.on('message', (_t, p) => acks.push(JSON.parse(p.toString()).eventId));
      await client.subscribeAsync(topics.acks(locker.id), { qos: 1 });
      await client.publishAsync(topics.connection(locker.id), JSON.stringify(connection({ agentVersion: 'v1' })), {
        qos: 1,
      });
      await untilOnline(w, locker.id);
      const logged = lines.length;

      const big = 'x'.repeat(100_000);
      await client.publishAsync(topics.connection(locker.id), JSON.stringify(connection({ agentVersion: big })), {
        qos: 1,
      });
      const event = (over: Record<string, unknown>) => ({
        v: CONTRACT_VERSION,
        eventId: `e-${Math.random().toString(36).slice(2)}`,
        seq: 1,
        type: 'CELL_FAULT',
        cellId: '1',
        fault: 'JAMMED',
        at: new Date().toISOString(),
        ...over,
      });
      for (const over of [
        { eventId: big },
        { eventId: 'has\u0000nul' },
        { type: 'PICKED_UP', orderId: big },
        { cellId: big },
        { seq: 2 ** 53 },
        { type: 'CODE_REJECTED', reason: 'UNKNOWN_CODE', maskedCode: big },
      ]) {
        await client.publishAsync(topics.events(locker.id), JSON.stringify(event(over)), { qos: 1 });
      }
      await client.publishAsync(topics.events(locker.id), JSON.stringify(event({ eventId: 'valid-1' })), { qos: 1 });
      await until('the valid event acked', () => (acks.includes('valid-1') ? true : undefined));
      assert.deepEqual(acks, ['valid-1']);
      const stored = await w.db
        .selectFrom('locker_event')
        .select('eventId')
        .where('postomatId', '=', locker.id)
        .execute();
      assert.deepEqual(
        stored.map((e) => e.eventId),
        ['valid-1'],
      );
      assert.equal((await link(w.db, locker.id))?.agentVersion, 'v1');
      const longest = Math.max(...lines.slice(logged).map((l) => l.length));
      assert.ok(longest < 1_000, `a log line of ${longest} characters`);
      assert.ok(!lines.slice(logged).some((l) => l.includes('xxxxxxxxxx')), 'no oversized value reaches the log');
      await client.endAsync();
    });

    it('a long line from a keypad or scanner still makes a CODE_REJECTED event the cloud accepts', async () => {
      const locker = await w.newLocker();
      const sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
      await sim.typeCode('7'.repeat(200));
      const row = await until('the rejection stored', () =>
        w.db
          .selectFrom('locker_event')
          .select(['type', 'detail'])
          .where('postomatId', '=', locker.id)
          .where('type', '=', 'CODE_REJECTED')
          .executeTakeFirst(),
      );
      assert.equal(row.type, 'CODE_REJECTED');
      assert.ok(!JSON.stringify(row).includes('7'), 'no digit of the code');
    });

    it(`a report of ${MQTT_LIMITS.cellsPerReport} cells is kept, one of ${MQTT_LIMITS.cellsPerReport + 1} dropped`, async () => {
      const locker = await w.newLocker();
      const client = await lockerClient(w, locker);
      const report = (n: number) => ({
        v: CONTRACT_VERSION,
        at: new Date().toISOString(),
        cells: Array.from({ length: n }, (_, i) => ({
          cellId: String(i + 1),
          size: 'S',
          lockClosed: true,
          parcelPresent: false,
          state: 'OK',
        })),
      });
      await client.publishAsync(topics.cells(locker.id), JSON.stringify(report(MQTT_LIMITS.cellsPerReport)), {
        qos: 1,
      });
      await until('the full report kept', async () =>
        JSON.parse((await link(w.db, locker.id))?.cells ?? '[]').length === MQTT_LIMITS.cellsPerReport
          ? true
          : undefined,
      );
      await client.publishAsync(topics.cells(locker.id), JSON.stringify(report(MQTT_LIMITS.cellsPerReport + 1)), {
        qos: 1,
      });
      // Messages of one locker are handled in order: once this one is, the report before it was too.
      await client.publishAsync(
        topics.connection(locker.id),
        JSON.stringify(connection({ agentVersion: 'after-cells' })),
        { qos: 1 },
      );
      await until('handled', async () =>
        (await link(w.db, locker.id))?.agentVersion === 'after-cells' ? true : undefined,
      );
      assert.equal(JSON.parse((await link(w.db, locker.id))!.cells!).length, MQTT_LIMITS.cellsPerReport);
      await client.endAsync();
    });

    it("the cell numbers of a report are written in chunks: 40,000 of them pass SQLite's limit on bound values", async () => {
      const locker = await w.newLocker();
      const msg: CellsMessage = {
        v: CONTRACT_VERSION,
        at: new Date().toISOString(),
        // Open, all but cells 2 and 4: one list of 39,998 numbers.
        cells: Array.from({ length: 40_000 }, (_, i) => ({
          cellId: String(i + 1),
          size: 'S' as const,
          lockClosed: i === 1 || i === 3,
          parcelPresent: false,
          state: 'OK' as const,
        })),
      };
      await recordCells(w.db, locker.id, msg, new Date());
      const cells = await w.db
        .selectFrom('cell')
        .select(['number', 'isOpen'])
        .where('postomatId', '=', locker.id)
        .orderBy('number')
        .execute();
      assert.deepEqual(
        cells.map((c) => [c.number, c.isOpen]),
        [
          [1, 1],
          [2, 0],
          [3, 1],
          [4, 0],
          [5, 1],
          [6, 1],
          [7, 1],
          [8, 1],
        ],
      );
    });
  });
}

describe('a locker that sends faster than its messages are handled', () => {
  it(`queues at most ${MAX_PENDING_PER_LOCKER} of its messages; the rest are dropped with one warning, and a summary when it catches up`, async () => {
    const storage = await openTestStorage(DIALECTS[0]);
    try {
      const lines: any[] = [];
      const logger = createLogger({ level: 'debug', write: (l) => lines.push(JSON.parse(l)) });
      const clock = new ManualClock('2026-07-01T10:00:00.000Z');
      const locker = await createPostomat(
        storage.db,
        { title: 'Flood', shortId: 'FLOOD1' },
        [{ number: 1, size: 'M', board: 0, lock: 1 }],
        clock.now(),
      );
      const publisher = new SyncPublisher(
        { db: storage.db, clock, logger, publish: async () => true, connected: () => true },
        { pollMs: 60_000, commandResendMs: 10_000 },
      );
      const inbound = new InboundMessages({
        db: storage.db,
        uow: createUnitOfWork(storage.db, storage.changes),
        clock,
        logger,
        publish: async () => true,
        publisher,
      });
      const cells: CellsMessage = {
        v: CONTRACT_VERSION,
        at: clock.now().toISOString(),
        cells: [{ cellId: '1', size: 'M', lockClosed: true, parcelPresent: false, state: 'OK' }],
      };
      const payload = Buffer.from(JSON.stringify(cells));
      for (let i = 0; i < 1_000; i++) inbound.handle(topics.cells(locker.id), payload);
      await inbound.idle();
      const warnings = lines.filter((l) => l.level === 'warn');
      assert.deepEqual(
        warnings.map((l) => l.msg),
        [
          'locker sends faster than its messages are handled: dropping until it catches up',
          'locker caught up: messages were dropped meanwhile',
        ],
      );
      assert.equal(warnings[1].dropped, 1_000 - MAX_PENDING_PER_LOCKER);
      // And it is served again afterwards.
      inbound.handle(topics.cells(locker.id), payload);
      await inbound.idle();
      assert.equal(lines.filter((l) => l.level === 'warn').length, 2);
    } finally {
      await storage.destroy();
    }
  });
});
