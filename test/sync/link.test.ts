/**
 * The locker link itself: a real agent over pseudo-terminals connects to the cloud's embedded
 * broker with its own credentials, announces itself and its cells, and receives orders; the
 * broker refuses wrong credentials and anything outside a locker's own topics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import net from 'node:net';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, topics } from '../../shared/mqtt/index.ts';
import { startTestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import { lockerLinkStatus } from '../../cloud/sync/status.ts';
import {
  BASE,
  codesOf,
  link,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';

function rawClient(url: string, username: string, password: string, clientId = `locker-${username}`) {
  return mqtt.connect(url, { clientId, username, password, reconnectPeriod: 0, connectTimeout: 5_000 });
}

/** Resolves with the connect error, or undefined when the broker accepted the connection. */
function connectOutcome(client: mqtt.MqttClient): Promise<Error | undefined> {
  return new Promise((resolve) => {
    client.once('connect', () => resolve(undefined));
    client.once('error', (err) => resolve(err));
  });
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] locker link over the embedded broker`, () => {
    let w: SyncWorld;
    let a: CloudLocker;
    let b: CloudLocker;
    before(async () => {
      w = await startSyncWorld(dialect);
      a = await w.newLocker('Alpha');
      b = await w.newLocker('Beta');
    });
    after(() => w.close());

    it('a real agent connects with its credentials: online, cells reported, orders reach it', async () => {
      const sim = await w.startAgent(a);
      await untilOnline(w, a.id);
      const state = await until('cells reported', async () => (await link(w.db, a.id))?.cells ?? undefined);
      assert.deepEqual(
        JSON.parse(state)
          .map((c: any) => [c.cellId, c.state])
          .slice(0, 3),
        [
          ['1', 'OK'],
          ['2', 'OK'],
          ['3', 'OK'],
        ],
      );
      assert.equal(JSON.parse(state).length, 8);
      const locker = await w.cloud.request('GET', `${BASE}/postomat/${a.id}`, { token: w.company.key });
      assert.equal(locker.body.isConnected, true);

      const order = await w.createOrder(a.id);
      const codes = await codesOf(w, order.id);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
      // The code is usable at the locker: typing it opens a cell.
      assert.match(await typeAndWaitOpen(sim, codes.DOWN), /^[1-8]$/);
    });

    it("refuses a wrong password and a client id that is not the locker's own", async () => {
      const bad = rawClient(w.mqttUrl, b.id, 'not-the-password');
      const err = await connectOutcome(bad);
      bad.end(true);
      assert.match(String(err?.message), /bad user ?name or password/i);

      const hijack = rawClient(w.mqttUrl, b.id, b.agent.password, `locker-${a.id}`);
      const err2 = await connectOutcome(hijack);
      hijack.end(true);
      assert.match(String(err2?.message), /Identifier rejected/i);
      assert.equal((await link(w.db, a.id))?.online, 1, 'locker A keeps its connection');
    });

    it("refuses a locker's credentials publishing or subscribing as another locker", async () => {
      const client = rawClient(w.mqttUrl, b.id, b.agent.password);
      assert.equal(await connectOutcome(client), undefined);
      const refused = await client
        .subscribeAsync({
          [topics.sync(a.id)]: { qos: 1 },
          [topics.sync(b.id)]: { qos: 1 },
          'lockers/+/sync': { qos: 1 },
        })
        .then(
          () => undefined,
          (err) => err.packet.granted,
        );
      assert.deepEqual(refused, [128, 1, 128]);

      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      const forged = {
        v: CONTRACT_VERSION,
        eventId: 'forged-1',
        seq: 1,
        type: 'CELL_FAULT',
        cellId: '1',
        fault: 'JAMMED',
        at: new Date().toISOString(),
      };
      client.publish(topics.events(a.id), JSON.stringify(forged), { qos: 1 });
      await closed; // the broker drops a connection that publishes outside its topics
      client.end(true);
      await w.cloud.sync.inbound.idle();
      const stored = await w.db
        .selectFrom('locker_event')
        .select('eventId')
        .where('eventId', '=', 'forged-1')
        .execute();
      assert.equal(stored.length, 0);
    });

    it('marks the locker offline from its Last Will when the connection drops, since when the cloud learned it', async () => {
      // The agent connected an hour ago; its Will carries that time.
      const at = new Date(Date.now() - 3_600_000).toISOString();
      const will = {
        topic: topics.connection(b.id),
        payload: Buffer.from(
          JSON.stringify({ v: CONTRACT_VERSION, online: false, agentVersion: 't', syncVersion: 0, at }),
        ),
        qos: 1 as const,
        retain: true,
      };
      const client = mqtt.connect(w.mqttUrl, {
        clientId: `locker-${b.id}`,
        username: b.id,
        password: b.agent.password,
        reconnectPeriod: 0,
        will,
      });
      assert.equal(await connectOutcome(client), undefined);
      await client.publishAsync(
        topics.connection(b.id),
        JSON.stringify({ v: CONTRACT_VERSION, online: true, agentVersion: 't', syncVersion: 0, at }),
        { qos: 1, retain: true },
      );
      await untilOnline(w, b.id);
      client.end(true); // no DISCONNECT: the broker publishes the will
      await untilOnline(w, b.id, false);
      const locker = await w.cloud.request('GET', `${BASE}/postomat/${b.id}`, { token: w.company.key });
      assert.equal(locker.body.isConnected, false);
      const status = await lockerLinkStatus(w.db, b.id);
      assert.equal(status.connection?.online, false);
      assert.notEqual(status.connection?.since, at, 'not the time of the connection the Will guarded');
      assert.equal(status.connection?.since, (await link(w.db, b.id))?.updatedAt);
    });
  });
}

describe('the embedded broker at start-up', () => {
  it('names MQTT_PORT when the port is already in use', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      await assert.rejects(
        startTestCloud(DIALECTS[0], { env: { MQTT_PORT: String(port) } }),
        /MQTT_PORT \d+ is already in use: choose another with MQTT_PORT=…, or use an external broker with MQTT_URL/,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
