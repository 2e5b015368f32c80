/**
 * The cloud on an external broker (MQTT_URL). Registered only when it can run here:
 * - the Mosquitto on 127.0.0.1:1883, when one answers: the same order scenarios as over the
 *   embedded broker;
 * - a Mosquitto of our own configured with docs/mosquitto/acl, when the mosquitto binary is
 *   installed: the documented ACL lets each locker do its part and nothing of another's.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, topics } from '../../shared/mqtt/index.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import { codesOf, startSyncWorld, until, untilAgent, untilOnline, useCell, type CloudLocker, type SyncWorld } from './harness.ts';
import { brokerScenarios, untilStatus } from './scenarios.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function reachable(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(500);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

const installed = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;

if (await reachable(1883)) brokerScenarios('Mosquitto on 127.0.0.1:1883', { env: { MQTT_URL: 'mqtt://127.0.0.1:1883' } });

if (installed('mosquitto') && installed('mosquitto_passwd')) {
  /** A private Mosquitto with the documented ACL, passwords added as lockers are made. */
  async function startMosquitto() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-mosq-'));
    fs.chmodSync(dir, 0o755); // mosquitto started as root reads its files as user mosquitto
    const passwd = path.join(dir, 'passwd');
    const cloudPassword = 'cloud-secret-for-tests';
    const add = (user: string, password: string) => {
      const r = spawnSync('mosquitto_passwd', ['-b', ...(fs.existsSync(passwd) ? [] : ['-c']), passwd, user, password]);
      assert.equal(r.status, 0, String(r.stderr));
      fs.chmodSync(passwd, 0o644);
    };
    add('plk-cloud', cloudPassword);
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const conf = path.join(dir, 'mosquitto.conf');
    fs.writeFileSync(
      conf,
      [
        `listener ${port} 127.0.0.1`,
        'allow_anonymous false',
        `password_file ${passwd}`,
        `acl_file ${path.join(ROOT, 'docs/mosquitto/acl')}`,
        'use_username_as_clientid true',
        'persistence false',
      ].join('\n') + '\n',
    );
    fs.chmodSync(conf, 0o644);
    const proc: ChildProcess = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
    await until('mosquitto listening', async () => ((await reachable(port)) ? true : undefined));
    return {
      url: `mqtt://127.0.0.1:${port}`,
      cloudPassword,
      /** adds a locker's agent password and makes mosquitto read its files again */
      async allow(user: string, password: string) {
        add(user, password);
        proc.kill('SIGHUP');
        await until(`${user} accepted`, async () => {
          const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username: user, password, reconnectPeriod: 0 }).catch(() => undefined);
          await c?.endAsync();
          return c ? true : undefined;
        });
      },
      async stop() {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  for (const dialect of DIALECTS.slice(0, 1)) {
    describe(`[${dialect.name}] Mosquitto configured with docs/mosquitto/acl`, () => {
      let broker: Awaited<ReturnType<typeof startMosquitto>>;
      let w: SyncWorld;
      let a: CloudLocker;
      let b: CloudLocker;
      before(async () => {
        broker = await startMosquitto();
        w = await startSyncWorld(dialect, { env: { MQTT_URL: broker.url, MQTT_USERNAME: 'plk-cloud', MQTT_PASSWORD: broker.cloudPassword } });
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
        const wrong = await mqtt.connectAsync(broker.url, { username: b.id, password: 'wrong', reconnectPeriod: 0 }).then(
          (c) => (c.end(true), undefined),
          (err) => err as Error,
        );
        assert.match(String(wrong?.message), /Not authorized|Bad username or password/i);

        const intruder = await mqtt.connectAsync(broker.url, { username: b.id, password: b.agent.password, reconnectPeriod: 0 });
        const seen: string[] = [];
        intruder.on('message', (topic) => seen.push(topic));
        await intruder.subscribeAsync([topics.sync(a.id), topics.commands(a.id), topics.events(a.id)], { qos: 1 }).catch(() => undefined);
        const forged = { v: CONTRACT_VERSION, eventId: 'forged-m', seq: 1, type: 'CELL_FAULT', cellId: '1', fault: 'JAMMED', at: new Date().toISOString() };
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
        assert.deepEqual(seen.filter((t) => t.includes(a.id)), []);
        assert.equal(await w.db.selectFrom('locker_event').select('eventId').where('eventId', '=', 'forged-m').executeTakeFirst(), undefined);
        assert.ok(await w.db.selectFrom('locker_event').select('eventId').where('eventId', '=', 'own-m').executeTakeFirst());
      });
    });
  }
}
