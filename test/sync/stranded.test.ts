/**
 * No parcel stranded (issue 16, points 4, 8 and 9), through the real stack: HTTP API, cloud,
 * embedded broker, a real agent over pseudo-terminals and the simulated locker.
 * - An order stored with an absurd storage period is placed (it made the cloud throw for ever).
 * - An event the cloud cannot apply is tried LOCKER_EVENT_MAX_ATTEMPTS times, then set aside as
 *   FAILED, acknowledged (the agent stops sending it), logged and alarmed; a database that is
 *   unavailable is not counted (PostgreSQL: an injected serialization failure).
 * - A wrong cell map: the agent never opens a cell the cloud does not know, the operator sees
 *   the difference; a placement the cloud refuses (an older agent) is alarmed, and a pickup that
 *   follows it is refused at once instead of waiting for ever.
 * - An order never placed expires and leaves the locker; placed after all (the locker was
 *   offline), it comes back to life.
 * Faults are injected in the real database with a trigger, not by replacing code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { sql } from 'kysely';
import { runOperator } from '../../cloud/operator/cli.ts';
import { createLogger } from '../../cloud/logger.ts';
import { expireUnplacedOrders } from '../../cloud/services/order-expiry.ts';
import type { Db } from '../../cloud/storage/database.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import type { InProcessAgent } from '../../hardware-sim/agent-handle.ts';
import { ManualClock } from '../../shared/clock.ts';
import { CONTRACT_VERSION, topics, type LockerEvent } from '../../shared/mqtt/index.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import { DIALECTS, type TestDialect } from '../helpers/storage.ts';
import { testUow } from '../helpers/locker-world.ts';
import {
  BASE,
  codesOf,
  eventsOf,
  orderRow,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';
import { outboxEmpty, untilStatus } from './scenarios.ts';

const DAY = 86_400_000;
const MAX_ATTEMPTS = 3;

/** Makes every update of one order fail in the database itself, as a fault the cloud did not expect would. */
async function breakOrder(
  db: Db,
  dialect: TestDialect,
  orderId: string,
  sqlstate = 'P0001',
): Promise<() => Promise<void>> {
  if (dialect.name === 'sqlite') {
    await sql
      .raw(
        `create trigger break_order before update on locker_order when old.id = '${orderId}' begin select raise(abort, 'injected fault'); end`,
      )
      .execute(db);
    return async () => void (await sql.raw('drop trigger break_order').execute(db));
  }
  await sql
    .raw(
      `create function break_order() returns trigger as $$ begin if old.id = '${orderId}' then raise exception 'injected fault' using errcode = '${sqlstate}'; end if; return new; end $$ language plpgsql`,
    )
    .execute(db);
  await sql
    .raw('create trigger break_order before update on locker_order for each row execute function break_order()')
    .execute(db);
  return async () => {
    await sql.raw('drop trigger break_order on locker_order').execute(db);
    await sql.raw('drop function break_order()').execute(db);
  };
}

/**
 * Waits until the agent reads every cell: on a loaded machine a board may miss a status read,
 * and its cells are unknown (no free cell) until the next one.
 */
const cellsKnown = (sim: SimLocker) =>
  until('every cell read', async () =>
    (await sim.agent.cells()).cells.every((c) => c.lockClosed !== null) ? true : undefined,
  );

/** Types a code once every cell is read, and waits for the cell it opens. */
async function typeWhenReady(sim: SimLocker, code: string): Promise<string> {
  await cellsKnown(sim);
  return typeAndWaitOpen(sim, code);
}

const alarmsOf = (db: Db, lockerId: string) =>
  db
    .selectFrom('locker_alarm')
    .select(['id', 'kind', 'orderId', 'cellId', 'eventId', 'detail', 'resolvedAt'])
    .where('postomatId', '=', lockerId)
    .orderBy('raisedAt')
    .execute();

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] no parcel stranded`, () => {
    let w: SyncWorld;
    let locker: CloudLocker;
    let sim: SimLocker;
    const logs: string[] = [];
    before(async () => {
      w = await startSyncWorld(dialect, {
        env: { LOCKER_EVENT_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
        logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }),
      });
      locker = await w.newLocker();
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
    });
    after(() => w.close());

    async function place(orderId: string): Promise<string> {
      const { DOWN } = await codesOf(w, orderId);
      await untilAgent(sim, orderId, 'order known', (o) => o?.codes.DOWN === DOWN);
      const cell = await typeWhenReady(sim, DOWN);
      await useCell(sim, cell, true);
      return cell;
    }

    it('an order stored with a storage period of 100,000,001 days is placed, with a year', async () => {
      const order = await w.createOrder(locker.id);
      await w.db.updateTable('locker_order').set({ days: 100_000_001 }).where('id', '=', order.id).execute();
      await place(order.id);
      await untilStatus(w, order.id, 'DELIVERED');
      const row = await orderRow(w.db, order.id);
      assert.equal(Date.parse(row.endDateTime!) - Date.parse(row.startDateTime!), 365 * DAY);
      await outboxEmpty(sim);
    });

    it(`an event that keeps failing is set aside after ${MAX_ATTEMPTS} attempts: FAILED, acknowledged, logged, alarmed, in locker status`, async () => {
      const order = await w.createOrder(locker.id);
      await untilAgent(sim, order.id, 'order known', (o) => o !== undefined);
      const repair = await breakOrder(w.db, dialect, order.id);
      try {
        const cell = await place(order.id);
        const failed = await until('the placement set aside', async () =>
          (await eventsOf(w.db, order.id)).find((e) => e.outcome === 'FAILED'),
        );
        assert.equal(failed.type, 'PLACED');
        assert.match(String(failed.note), new RegExp(`${MAX_ATTEMPTS} attempts: .*injected fault`));
        await outboxEmpty(sim); // acknowledged: the agent stopped sending it
        assert.equal((await orderRow(w.db, order.id)).status, 'CREATED', 'never applied');
        const attempts = logs.filter((l) => l.includes('locker event failed') && l.includes(order.id));
        assert.equal(attempts.length, MAX_ATTEMPTS - 1, 'each failed attempt logged');
        const setAside = logs.find((l) => l.includes('set aside as FAILED') && l.includes(order.id));
        assert.ok(
          setAside?.includes(locker.id) && setAside.includes(`"cellId":"${cell}"`),
          'the locker, order and cell named',
        );
        const [alarm] = (await alarmsOf(w.db, locker.id)).filter((a) => a.orderId === order.id);
        assert.deepEqual([alarm.kind, alarm.cellId, alarm.resolvedAt], ['EVENT_FAILED', cell, null]);

        const status = await runOperator(['locker', 'status', '--id', locker.id], {}, w.cloud.storage);
        assert.equal(status.code, 0, status.stderr);
        assert.match(status.stdout, /ALARMS \(\d+ open/);
        assert.ok(status.stdout.includes(order.id) && status.stdout.includes('EVENT_FAILED'));
        const resolved = await runOperator(
          ['locker', 'alarm', 'resolve', '--id', alarm.id, '--note', 'parcel taken out by hand'],
          {},
          w.cloud.storage,
        );
        assert.equal(resolved.code, 0, resolved.stderr);
        assert.deepEqual(
          (await alarmsOf(w.db, locker.id)).filter((a) => a.orderId === order.id && a.resolvedAt === null),
          [],
        );
      } finally {
        await repair();
      }
    });

    if (dialect.name === 'postgres') {
      it('a database that cannot answer is not counted: the event waits, and applies once it can', async () => {
        const order = await w.createOrder(locker.id);
        await untilAgent(sim, order.id, 'order known', (o) => o !== undefined);
        const repair = await breakOrder(w.db, dialect, order.id, '40001');
        let repaired = false;
        try {
          await place(order.id);
          // Twice the attempts that would set an unexpected failure aside, at the agent's 1 s resends.
          await until(
            'resends',
            () =>
              logs.filter((l) => l.includes('database cannot answer') && l.includes(order.id)).length >=
              2 * MAX_ATTEMPTS
                ? true
                : undefined,
            20_000,
          );
          assert.deepEqual(await eventsOf(w.db, order.id), [], 'nothing recorded');
          assert.equal(
            (
              await w.db
                .selectFrom('locker_event_attempt')
                .select('attempts')
                .where(
                  'eventId',
                  'in',
                  (await sim.agent.pendingEvents()).map((e) => e.eventId),
                )
                .execute()
            ).length,
            0,
            'not counted',
          );
          await repair();
          repaired = true;
          await untilStatus(w, order.id, 'DELIVERED');
          await outboxEmpty(sim);
        } finally {
          if (!repaired) await repair();
        }
      });
    }

    it('an order never placed expires: its locker drops it and its code stops working there', async () => {
      const order = await w.createOrder(locker.id);
      const { DOWN } = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === DOWN);
      const later = new ManualClock(new Date(Date.now() + 31 * DAY));
      assert.ok(
        (await expireUnplacedOrders(
          { uow: testUow(w.cloud.storage), clock: later, logger: createLogger({ level: 'error' }) },
          { days: 30, batch: 50 },
        )) >= 1,
      );
      await untilAgent(sim, order.id, 'order dropped', (o) => o === undefined);
      const from = sim.displayLines.length;
      await sim.typeCode(DOWN);
      assert.match(await waitForDisplay(sim, /Wrong code/, from), /Wrong code/);
      const listed = await w.cloud.request('GET', `${BASE}/order/list?pageSize=100&status=CREATED`, {
        token: w.company.key,
      });
      assert.ok(!listed.body.data.some((o: any) => o.id === order.id), 'out of the list');
    });

    it('an expired order placed all the same (the locker was offline) comes back: DELIVERED, active, collectable', async () => {
      const order = await w.createOrder(locker.id);
      const codes = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
      await sim.agent.setNetwork(false);
      await untilOnline(w, locker.id, false);
      await expireUnplacedOrders(
        {
          uow: testUow(w.cloud.storage),
          clock: new ManualClock(new Date(Date.now() + 31 * DAY)),
          logger: createLogger({ level: 'error' }),
        },
        { days: 30, batch: 50 },
      );
      assert.equal((await orderRow(w.db, order.id)).isActive, 0);
      const cell = await place(order.id);
      await sim.agent.setNetwork(true);
      await untilStatus(w, order.id, 'DELIVERED');
      const row = await orderRow(w.db, order.id);
      assert.deepEqual([row.isActive, row.expiredAt], [1, null]);
      const listed = await w.cloud.request('GET', `${BASE}/order/list?pageSize=100&status=DELIVERED`, {
        token: w.company.key,
      });
      assert.ok(
        listed.body.data.some((o: any) => o.id === order.id),
        'back in the list',
      );
      const { UP } = await codesOf(w, order.id);
      await untilAgent(
        sim,
        order.id,
        'the locker holds it again',
        (o) => o?.status === 'DELIVERED' && o.cellId === cell && o.codes.UP === UP,
      );
      assert.equal(await typeWhenReady(sim, UP), cell);
      await useCell(sim, cell, false);
      await untilStatus(w, order.id, 'COMPLETED');
    });
  });

  describe(`[${dialect.name}] a wrong cell map`, () => {
    let w: SyncWorld;
    const logs: string[] = [];
    before(async () => {
      w = await startSyncWorld(dialect, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
    });
    after(() => w.close());

    it('the agent never opens a cell the cloud does not know; the operator sees the difference', async () => {
      // The cloud has cells 1-6; the installer wired and configured cells 1 and 9.
      const six = Array.from({ length: 6 }, (_, i) => ({ number: i + 1, size: 'M' as const, board: 0, lock: i + 1 }));
      const locker = await w.newLocker('Wrong map', six);
      const sim = await w.startAgent(locker, {
        cells: [
          { number: 1, size: 'M', board: 0, lock: 1 },
          { number: 9, size: 'M', board: 0, lock: 2 },
        ],
      });
      await untilOnline(w, locker.id);

      const mismatch = await until('cell map alarm', async () =>
        (await alarmsOf(w.db, locker.id)).find((a) => a.kind === 'CELL_MAP_MISMATCH'),
      );
      assert.match(
        mismatch.detail,
        /cells the cloud does not know \(never used for parcels\): 9; cells of the cloud the agent does not have: 2, 3, 4, 5, 6/,
      );
      // The line is written once the alarm's commit is on the disk, which a reader may see just before.
      assert.ok(
        await until('a warning names the locker', () =>
          logs.some((l) => l.includes('cell map differs') && l.includes(locker.id)) ? true : undefined,
        ),
      );

      const first = await w.createOrder(locker.id);
      const second = await w.createOrder(locker.id);
      const a = await codesOf(w, first.id);
      const b = await codesOf(w, second.id);
      await untilAgent(sim, second.id, 'orders known', (o) => o?.codes.DOWN === b.DOWN);
      assert.equal(await typeWhenReady(sim, a.DOWN), '1');
      await useCell(sim, '1', true);
      await untilStatus(w, first.id, 'DELIVERED');

      await cellsKnown(sim);
      const from = sim.displayLines.length;
      await sim.typeCode(b.DOWN);
      assert.match(await waitForDisplay(sim, /No free cell/, from), /No free cell/);
      assert.equal(sim.bus.unlockCount(0, 2), 0, 'cell 9 was never opened');
      assert.equal((await orderRow(w.db, second.id)).status, 'CREATED');

      // Cell 1 frees up: the second parcel goes there, and is DELIVERED like any other.
      assert.equal(await typeWhenReady(sim, a.UP), '1');
      await useCell(sim, '1', false);
      await untilStatus(w, first.id, 'COMPLETED');
      await untilAgent(sim, first.id, 'first order gone', (o) => o === undefined);
      assert.equal(await typeWhenReady(sim, b.DOWN), '1');
      await useCell(sim, '1', true);
      await untilStatus(w, second.id, 'DELIVERED');

      const status = await runOperator(['locker', 'status', '--id', locker.id], {}, w.cloud.storage);
      assert.match(status.stdout, /CELL_MAP_MISMATCH/);
      assert.match(status.stdout, /cells the cloud does not know/);
    });

    it('a cell the operator switches off takes no new parcel at the locker', async () => {
      const locker = await w.newLocker('Switch off');
      const sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
      // Every cell but 3 switched off, then 3 too.
      for (const c of locker.cells.filter((x) => x.number !== 3)) {
        const r = await runOperator(['cell', 'update', '--id', c.id, '--active', 'false'], {}, w.cloud.storage);
        assert.equal(r.code, 0, r.stderr);
      }
      const order = await w.createOrder(locker.id);
      const { DOWN } = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === DOWN);
      assert.equal(await typeWhenReady(sim, DOWN), '3');
      await useCell(sim, '3', true);
      await untilStatus(w, order.id, 'DELIVERED');
      const next = await w.createOrder(locker.id);
      const nextCodes = await codesOf(w, next.id);
      await untilAgent(sim, next.id, 'order known', (o) => o?.codes.DOWN === nextCodes.DOWN);
      // Cell 3 switched off too: the locker hears of it at once (the polls here are a minute).
      const three = locker.cells.find((x) => x.number === 3)!;
      assert.equal(
        (await runOperator(['cell', 'update', '--id', three.id, '--active', 'false'], {}, w.cloud.storage)).code,
        0,
      );
      const agent = (sim.agent as InProcessAgent).agent;
      await until('the locker knows cell 3 is off', () => {
        const map = agent.store.cloudCellMap();
        return map.state === 'map' && map.cells.get('3')?.isActive === false ? true : undefined;
      });
      await cellsKnown(sim);
      const from = sim.displayLines.length;
      await sim.typeCode(nextCodes.DOWN);
      assert.match(await waitForDisplay(sim, /No free cell/, from), /No free cell/);
    });

    it('a placement the cloud refuses (an older agent) is alarmed, and the pickup that follows it is refused at once', async () => {
      const locker = await w.newLocker('Old agent');
      const order = await w.createOrder(locker.id);
      const client = await mqtt.connectAsync(w.mqttUrl, {
        clientId: `locker-${locker.id}`,
        username: locker.id,
        password: locker.agent.password,
        reconnectPeriod: 0,
      });
      const acks: string[] = [];
      client.on('message', (_t, payload) => acks.push(JSON.parse(payload.toString()).eventId));
      await client.subscribeAsync(topics.acks(locker.id), { qos: 1 });
      const send = (e: Omit<LockerEvent, 'v' | 'at'>) =>
        client.publishAsync(
          topics.events(locker.id),
          JSON.stringify({ v: CONTRACT_VERSION, at: new Date().toISOString(), ...e }),
          { qos: 1 },
        );
      try {
        await send({ eventId: 'old-placed', seq: 1, type: 'PLACED', orderId: order.id, cellId: '99' });
        await until('placement acknowledged', () => (acks.includes('old-placed') ? true : undefined));
        await send({ eventId: 'old-pickup', seq: 2, type: 'PICKED_UP', orderId: order.id, cellId: '99' });
        await until('pickup acknowledged', () => (acks.includes('old-pickup') ? true : undefined));
      } finally {
        await client.endAsync();
      }
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:REJECTED', 'PICKED_UP:REJECTED'],
      );
      const alarms = (await alarmsOf(w.db, locker.id)).filter((a) => a.orderId === order.id);
      assert.deepEqual(
        alarms.map((a) => [a.kind, a.cellId, a.eventId]),
        [
          ['EVENT_REJECTED', '99', 'old-placed'],
          ['EVENT_REJECTED', '99', 'old-pickup'],
        ],
      );
      assert.match(alarms[0].detail, /no such cell at this locker/);
      const line = logs.find((l) => l.includes('old-placed') && l.includes('rejected'));
      assert.ok(line?.includes('"cellId":"99"') && /"level":"warn"/.test(line), 'a warning with the locker and cell');
      const listed = await runOperator(['locker', 'alarms', '--locker', locker.id, '--json'], {}, w.cloud.storage);
      assert.deepEqual(
        JSON.parse(listed.stdout)
          .map((a: any) => a.eventId)
          .sort(),
        ['old-pickup', 'old-placed'],
      );
    });
  });
}
