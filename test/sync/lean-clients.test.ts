/**
 * What the broker keeps per client (cloud/sync/lean-clients.ts): mqtt-packet's parser buffers
 * unfinished packets in a plain list, not a Duplex stream, and forgets the CONNECT packet (the
 * password in it) once the login is accepted. Checked on a real aedes over TCP: packets split at
 * every byte and packets far larger than one read still arrive whole, and on the embedded
 * broker, which says in its log when either does not fit the installed aedes.
 */
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Aedes, type Client } from 'aedes';
import mqtt from 'mqtt';
import mqttPacket from 'mqtt-packet';
import { createLogger } from '../../cloud/logger.ts';
import { startEmbeddedBroker, CLOUD_USERNAME } from '../../cloud/sync/broker.ts';
import { DEFAULT_BROKER_LIMITS } from '../../cloud/sync/broker-limits.ts';
import { AgentCredentials } from '../../cloud/sync/credentials.ts';
import { forgetConnect, leanParser } from '../../cloud/sync/lean-clients.ts';
import { ManualClock } from '../../shared/clock.ts';
import { eventually } from '../helpers/receiver.ts';
import { DIALECTS, openTestStorage } from '../helpers/storage.ts';

type Parser = { _list: { pipe?: unknown; length: number }; settings: Record<string, unknown> };
const parserOf = (c: Client) => (c as unknown as { _parser: Parser })._parser;

describe('the broker keeps a lean parser per client', () => {
  let broker: Aedes;
  let server: net.Server;
  let port: number;
  const clients: Client[] = [];
  const leaned: boolean[] = [];
  const forgot: boolean[] = [];

  before(async () => {
    broker = await Aedes.createBroker({
      authenticate(client, _username, _password, done) {
        forgot.push(forgetConnect(client));
        done(null, true);
      },
    });
    server = net.createServer((socket) => {
      const client = broker.handle(socket);
      clients.push(client);
      leaned.push(leanParser(client));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a packet sent one byte at a time and one of 300 KB arrive whole; the CONNECT is forgotten', async () => {
    const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: 'sub', reconnectPeriod: 0 });
    const got: Array<{ topic: string; payload: Buffer }> = [];
    sub.on('message', (topic, payload) => got.push({ topic, payload }));
    await sub.subscribeAsync('t/#', { qos: 1 });

    // A raw client whose every byte is its own TCP write: the parser meets each packet in pieces.
    const raw = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => raw.once('connect', () => resolve()));
    raw.setNoDelay(true);
    const bytes = Buffer.concat([
      mqttPacket.generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        clientId: 'raw',
        keepalive: 60,
        username: 'raw-user',
        password: Buffer.from('the-secret-password'),
      }),
      mqttPacket.generate({
        cmd: 'publish',
        topic: 't/bytes',
        payload: Buffer.from('one byte at a time'),
        qos: 0,
        dup: false,
        retain: false,
      }),
    ]);
    for (const b of bytes) {
      raw.write(Buffer.from([b]));
      await new Promise((r) => setImmediate(r));
    }
    const big = Buffer.alloc(300_000, 7);
    const pub = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: 'pub', reconnectPeriod: 0 });
    await pub.publishAsync('t/big', big, { qos: 1 });

    await eventually(() => assert.equal(got.length, 2), 5_000);
    const byTopic = new Map(got.map((m) => [m.topic, m.payload]));
    assert.equal(byTopic.get('t/bytes')?.toString(), 'one byte at a time');
    assert.ok(byTopic.get('t/big')?.equals(big), 'the 300 KB payload arrived unchanged');

    assert.deepEqual(leaned, [true, true, true], 'every connection got the plain list');
    assert.deepEqual(forgot, [true, true, true], 'every accepted login dropped its CONNECT');
    for (const c of clients) {
      const parser = parserOf(c);
      assert.equal(typeof parser._list.pipe, 'undefined', 'the buffer is no stream');
      assert.deepEqual(parser.settings, { protocolVersion: 4 });
      assert.ok(!JSON.stringify(parser.settings).includes('secret'));
    }
    raw.destroy();
    await Promise.all([sub.endAsync(), pub.endAsync()]);
  });

  it('leaves alone what it does not recognise', () => {
    assert.equal(leanParser({}), false);
    assert.equal(leanParser({ _parser: { _list: { length: 3, append() {}, pipe() {} } } }), false, 'not empty');
    assert.equal(forgetConnect({ _parser: { settings: {} } }), false);
    assert.equal(forgetConnect(null), false);
  });
});

describe('the embedded broker uses it', () => {
  it('a client logs in and exchanges messages, and nothing is said of lean-clients in the log', async () => {
    const lines: string[] = [];
    const storage = await openTestStorage(DIALECTS[0]);
    const broker = await startEmbeddedBroker({
      port: 0,
      host: '127.0.0.1',
      credentials: new AgentCredentials(storage.db),
      logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }),
      clock: new ManualClock(new Date()),
      limits: DEFAULT_BROKER_LIMITS,
    });
    try {
      const client = await mqtt.connectAsync(broker.url, {
        clientId: 'cloud-lean',
        username: CLOUD_USERNAME,
        password: broker.cloudSecret,
        reconnectPeriod: 0,
      });
      const got = new Promise<Buffer>((resolve) => client.once('message', (_t, p) => resolve(p)));
      await client.subscribeAsync('lean/test', { qos: 1 });
      await client.publishAsync('lean/test', 'hello', { qos: 1 });
      assert.equal((await got).toString(), 'hello');
      await client.endAsync();
      assert.equal(lines.filter((l) => l.includes('lean-clients')).length, 0, `no warning: ${lines.join('\n')}`);
      assert.ok(!lines.some((l) => l.includes(broker.cloudSecret)), 'the secret is in no log line');
    } finally {
      await broker.close();
      await storage.destroy();
    }
  });
});
