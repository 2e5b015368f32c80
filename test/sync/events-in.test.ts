/**
 * Events in, through the real broker, from a client holding one locker's credentials:
 * duplicated and replayed events are applied once and acknowledged every time; an event about
 * another locker's order, a step the state machine forbids, or a message that does not parse
 * is never applied.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { createLogger } from '../../cloud/logger.ts';
import { CONTRACT_VERSION, topics, type LockerEvent } from '../../shared/mqtt/index.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { codesOf, eventsOf, orderRow, startSyncWorld, until, type CloudLocker, type SyncWorld } from './harness.ts';

/** A stand-in agent speaking the contract by hand (no agent runs for this locker). */
async function handAgent(w: SyncWorld, locker: CloudLocker) {
  const client = await mqtt.connectAsync(w.mqttUrl, {
    clientId: `locker-${locker.id}`,
    username: locker.id,
    password: locker.agent.password,
    reconnectPeriod: 0,
  });
  const acks: string[] = [];
  client.on('message', (_t, payload) => acks.push(JSON.parse(payload.toString()).eventId));
  await client.subscribeAsync(topics.acks(locker.id), { qos: 1 });
  let seq = 0;
  return {
    acks,
    event(e: Partial<LockerEvent> & { type: LockerEvent['type'] }): LockerEvent {
      return {
        v: CONTRACT_VERSION,
        eventId: `e-${Math.random().toString(36).slice(2)}`,
        seq: ++seq,
        at: new Date().toISOString(),
        ...e,
      };
    },
    send: (e: unknown) =>
      client.publishAsync(topics.events(locker.id), typeof e === 'string' ? e : JSON.stringify(e), { qos: 1 }),
    acked: (eventId: string, times = 1) =>
      until(`${times} ack(s) of ${eventId}`, () =>
        acks.filter((a) => a === eventId).length >= times ? true : undefined,
      ),
    close: () => client.endAsync(),
  };
}

const statusRows = (w: SyncWorld, orderId: string) =>
  w.db.selectFrom('order_status').select('type').where('orderId', '=', orderId).execute();

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] events in`, () => {
    let w: SyncWorld;
    let mine: CloudLocker;
    let other: CloudLocker;
    let agent: Awaited<ReturnType<typeof handAgent>>;
    const logs: string[] = [];
    before(async () => {
      w = await startSyncWorld(dialect, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
      mine = await w.newLocker('Mine');
      other = await w.newLocker('Other');
      agent = await handAgent(w, mine);
    });
    after(async () => {
      await agent.close();
      await w.close();
    });

    it('a duplicated event is applied once, a replay later too; each copy is acknowledged', async () => {
      const order = await w.createOrder(mine.id);
      const placed = agent.event({ type: 'PLACED', orderId: order.id, cellId: '2' });
      await agent.send(placed);
      await agent.send(placed);
      await agent.acked(placed.eventId, 2);
      assert.equal((await orderRow(w.db, order.id)).status, 'DELIVERED');
      assert.equal((await orderRow(w.db, order.id)).cellId, mine.cells.find((c) => c.number === 2)!.id);

      const picked = agent.event({ type: 'PICKED_UP', orderId: order.id, cellId: '2' });
      await agent.send(picked);
      await agent.acked(picked.eventId);
      const outbox = await w.db.selectFrom('outbox_event').select('id').where('orderId', '=', order.id).execute();

      await agent.send(placed); // replayed long after, e.g. from a restored agent backup
      await agent.send(picked);
      await agent.acked(placed.eventId, 3);
      await agent.acked(picked.eventId, 2);
      assert.deepEqual((await statusRows(w, order.id)).map((s) => s.type).sort(), [
        'COMPLETED',
        'CREATED',
        'DELIVERED',
      ]);
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}`),
        ['PLACED:APPLIED', 'PICKED_UP:APPLIED'],
      );
      assert.equal(
        (await w.db.selectFrom('outbox_event').select('id').where('orderId', '=', order.id).execute()).length,
        outbox.length,
      );
    });

    it("an event about another locker's order is rejected, logged without codes, acknowledged, never applied", async () => {
      const theirs = await w.createOrder(other.id);
      const codes = await codesOf(w, theirs.id);
      const forged = agent.event({ type: 'PLACED', orderId: theirs.id, cellId: '1' });
      await agent.send(forged);
      await agent.acked(forged.eventId);
      assert.equal((await orderRow(w.db, theirs.id)).status, 'CREATED');
      assert.deepEqual(await eventsOf(w.db, theirs.id), [
        { type: 'PLACED', outcome: 'REJECTED', note: 'not an order of this locker' },
      ]);
      const line = logs.find((l) => l.includes(forged.eventId));
      assert.match(String(line), /locker event rejected/);
      for (const code of Object.values(codes))
        assert.ok(!logs.some((l) => l.includes(`"${code}"`) || l.includes(` ${code}`)), 'no code in any log line');
    });

    it('a step the state machine forbids is rejected; one that comes before its placement waits', async () => {
      const order = await w.createOrder(mine.id);
      const early = agent.event({ type: 'PICKED_UP', orderId: order.id, cellId: '1' });
      await agent.send(early);
      await until('the early pickup handled', () =>
        logs.some((l) => l.includes(early.eventId) && l.includes('not applicable yet')) ? true : undefined,
      );
      assert.equal(
        agent.acks.includes(early.eventId),
        false,
        'not acknowledged: the agent keeps it and sends it again',
      );
      assert.deepEqual(await eventsOf(w.db, order.id), []);

      const badCell = agent.event({ type: 'PLACED', orderId: order.id, cellId: '99' });
      await agent.send(badCell);
      await agent.acked(badCell.eventId);
      assert.equal((await orderRow(w.db, order.id)).status, 'CREATED');

      const placed = agent.event({ type: 'PLACED', orderId: order.id, cellId: '1' });
      await agent.send(placed);
      await agent.send(early); // the agent's retry: now it applies
      await agent.acked(early.eventId);
      const again = agent.event({ type: 'PLACED', orderId: order.id, cellId: '1' });
      await agent.send(again);
      await agent.acked(again.eventId);
      assert.equal((await orderRow(w.db, order.id)).status, 'COMPLETED');
      assert.deepEqual(
        (await eventsOf(w.db, order.id)).map((e) => `${e.type}:${e.outcome}:${e.note ?? ''}`),
        [
          'PLACED:REJECTED:no such cell at this locker',
          'PLACED:APPLIED:',
          'PICKED_UP:APPLIED:',
          'PLACED:REJECTED:order is COMPLETED, cannot become DELIVERED',
        ],
      );
    });

    it('stores the events that change no order for the operator', async () => {
      const fault = agent.event({ type: 'CELL_FAULT', cellId: '3', fault: 'JAMMED' });
      await agent.send(fault);
      await agent.acked(fault.eventId);
      const row = await w.db
        .selectFrom('locker_event')
        .selectAll()
        .where('eventId', '=', fault.eventId)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.type, row.outcome, row.detail, row.cellId], ['CELL_FAULT', 'STORED', 'JAMMED', '3']);
    });

    it('drops what does not parse, logs it, and goes on', async () => {
      await agent.send('not json');
      await agent.send({ v: '0.9', eventId: 'old-contract', seq: 1, type: 'PLACED', at: new Date().toISOString() });
      const ok = agent.event({ type: 'LOCKOUT', until: new Date().toISOString() });
      await agent.send(ok);
      await agent.acked(ok.eventId);
      assert.equal(logs.filter((l) => l.includes('does not parse')).length, 2);
      assert.equal(
        await w.db
          .selectFrom('locker_event')
          .select('eventId')
          .where('eventId', '=', 'old-contract')
          .executeTakeFirst(),
        undefined,
      );
    });
  });
}
