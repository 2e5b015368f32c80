/**
 * The cloud on an external broker (MQTT_URL). Registered only when it can run here:
 * - the Mosquitto on 127.0.0.1:1883, when one answers: the same order scenarios as over the
 *   embedded broker;
 * - a Mosquitto of our own configured with docs/mosquitto/acl, when the mosquitto binary is
 *   installed: the documented ACL lets each locker do its part and nothing of another's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, topics } from '../../shared/mqtt/index.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import {
  codesOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type CloudLocker,
  type SyncWorld,
} from './harness.ts';
import { brokerScenarios, untilStatus } from './scenarios.ts';
import { DOCUMENTED_ACL, mosquittoInstalled, reachable, startMosquitto } from '../helpers/mosquitto.ts';

if (await reachable(1883))
  brokerScenarios('Mosquitto on 127.0.0.1:1883', { env: { MQTT_URL: 'mqtt://127.0.0.1:1883' } });

if (mosquittoInstalled()) {
  describe('a private Mosquitto started from a clone only its owner may enter', () => {
    it('reads a copy of the ACL, which the mosquitto user can reach', async () => {
      // As `mktemp -d` makes it: 0700, so the broker (root turned mosquitto) cannot enter.
      const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-clone-'));
      try {
        fs.mkdirSync(path.join(clone, 'docs/mosquitto'), { recursive: true });
        fs.copyFileSync(DOCUMENTED_ACL, path.join(clone, 'docs/mosquitto/acl'));
        assert.equal(fs.statSync(clone).mode & 0o777, 0o700);
        const broker = await startMosquitto({ aclFile: path.join(clone, 'docs/mosquitto/acl') });
        try {
          assert.ok(fs.readFileSync(path.join(broker.dir, 'acl'), 'utf8').includes('pattern write lockers/%u/events'));
          await broker.allow('locker-x', 'pw-x-123');
          const c = await mqtt.connectAsync(broker.url, {
            username: 'locker-x',
            password: 'pw-x-123',
            reconnectPeriod: 0,
          });
          const seen: string[] = [];
          c.on('message', (t) => seen.push(t));
          await c.subscribeAsync(topics.acks('locker-x'), { qos: 1 });
          // The cloud's user may publish there; an ACL the broker could not read would refuse or drop it.
          const cloud = await mqtt.connectAsync(broker.url, {
            username: 'plk-cloud',
            password: broker.cloudPassword,
            reconnectPeriod: 0,
          });
          await cloud.publishAsync(topics.acks('locker-x'), '{}', { qos: 1 });
          await until('the ack through the ACL', () => (seen.length ? true : undefined));
          await cloud.endAsync();
          await c.endAsync();
        } finally {
          await broker.stop();
        }
      } finally {
        fs.rmSync(clone, { recursive: true, force: true });
      }
    });
  });

  for (const dialect of DIALECTS.slice(0, 1)) {
    describe(`[${dialect.name}] Mosquitto configured with docs/mosquitto/acl`, () => {
      let broker: Awaited<ReturnType<typeof startMosquitto>>;
      let w: SyncWorld;
      let a: CloudLocker;
      let b: CloudLocker;
      before(async () => {
        broker = await startMosquitto();
        w = await startSyncWorld(dialect, {
          env: { MQTT_URL: broker.url, MQTT_USERNAME: 'plk-cloud', MQTT_PASSWORD: broker.cloudPassword },
        });
        a = await w.newLocker('A');
        b = await w.newLocker('B');
        await broker.allow(a.id, a.agent.password);
        await broker.allow(b.id, b.agent.password);
      });
      after(async () => {
        await w.close();
        await broker.stop();
      });

      it('lets a locker do its part: announce, receive orders, report a placement', async () => {
        const sim = await w.startAgent(a);
        await untilOnline(w, a.id);
        const order = await w.createOrder(a.id);
        const codes = await codesOf(w, order.id);
        await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
        const cell = await typeAndWaitOpen(sim, codes.DOWN);
        await useCell(sim, cell, true);
        await untilStatus(w, order.id, 'DELIVERED');
      });

      it("keeps another locker's credentials out of its topics, and refuses a wrong password", async () => {
        const wrong = await mqtt
          .connectAsync(broker.url, { username: b.id, password: 'wrong', reconnectPeriod: 0 })
          .then(
            (c) => (c.end(true), undefined),
            (err) => err as Error,
          );
        assert.match(String(wrong?.message), /Not authorized|Bad username or password/i);

        const intruder = await mqtt.connectAsync(broker.url, {
          username: b.id,
          password: b.agent.password,
          reconnectPeriod: 0,
        });
        const seen: string[] = [];
        intruder.on('message', (topic) => seen.push(topic));
        await intruder
          .subscribeAsync([topics.sync(a.id), topics.commands(a.id), topics.events(a.id)], { qos: 1 })
          .catch(() => undefined);
        const forged = {
          v: CONTRACT_VERSION,
          eventId: 'forged-m',
          seq: 1,
          type: 'CELL_FAULT',
          cellId: '1',
          fault: 'JAMMED',
          at: new Date().toISOString(),
        };
        await intruder.publishAsync(topics.events(a.id), JSON.stringify(forged), { qos: 1 }).catch(() => undefined);
        // Its own topic works, so whatever it sent before has been through the broker.
        await intruder.subscribeAsync(topics.acks(b.id), { qos: 1 });
        const own = { ...forged, eventId: 'own-m', type: 'LOCKOUT', until: new Date().toISOString() };
        await intruder.publishAsync(topics.events(b.id), JSON.stringify(own), { qos: 1 });
        await until('ack of its own event', () => (seen.includes(topics.acks(b.id)) ? true : undefined));
        // An order for A makes the cloud publish on A's sync topic: the intruder must not hear it.
        await w.createOrder(a.id);
        await w.cloud.sync.publisher.tick();
        await new Promise((r) => setTimeout(r, 200));
        await intruder.endAsync();
        await w.cloud.sync.inbound.idle();
        assert.deepEqual(
          seen.filter((t) => t.includes(a.id)),
          [],
        );
        assert.equal(
          await w.db.selectFrom('locker_event').select('eventId').where('eventId', '=', 'forged-m').executeTakeFirst(),
          undefined,
        );
        assert.ok(
          await w.db.selectFrom('locker_event').select('eventId').where('eventId', '=', 'own-m').executeTakeFirst(),
        );
      });
    });
  }
}
