/**
 * Broker abuse before and after login, against the real cloud and its embedded broker: raw TCP
 * sockets (node:net) for what no client library sends — lying lengths, unfinished packets,
 * floods from chosen loopback addresses — and mqtt.js for the logged-in side. The limits are
 * set small through the same MQTT_* variables an operator uses, so the suite takes seconds.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, topics } from '../../shared/mqtt/index.ts';
import { createLogger } from '../../cloud/logger.ts';
import { createPostomat, resetAgentCredentials } from '../../cloud/services/admin/postomats.ts';
import type { ManualClock } from '../../shared/clock.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { CELLS, until } from './harness.ts';
import { connectPacket, publishHead, pushUntilClosed, rawClient, type RawClient } from './raw-mqtt.ts';

const MB = 1024 * 1024;

/** An mqtt.js client whose socket leaves from `localAddress` (another "client address"). */
function lockerClient(
  port: number,
  locker: { username: string; password: string },
  localAddress = '127.0.0.1',
  clientId = `locker-${locker.username}`,
) {
  return new mqtt.MqttClient(() => net.createConnection({ host: '127.0.0.1', port, localAddress }), {
    clientId,
    username: locker.username,
    password: locker.password,
    reconnectPeriod: 0,
    connectTimeout: 5_000,
    protocolVersion: 4,
  });
}

/** Resolves with the connect error, or undefined when the broker accepted the connection. */
function connectOutcome(client: mqtt.MqttClient): Promise<Error | undefined> {
  return new Promise((resolve) => {
    client.once('connect', () => resolve(undefined));
    client.once('error', (err) => resolve(err));
    client.once('close', () => resolve(new Error('closed')));
  });
}

async function closedWithin(c: RawClient, what: string, guardMs = 5_000): Promise<void> {
  await until(what, () => c.isClosed() || undefined, guardMs);
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] broker abuse before and after login`, () => {
    let cloud: TestCloud;
    let port: number;
    const lines: any[] = [];
    const refusalLines = () => lines.filter((l) => String(l.msg).startsWith('mqtt refused')).length;
    const refusals = () => cloud.sync.broker!.refusals();
    let a: { username: string; password: string };
    let b: { username: string; password: string };
    const open: RawClient[] = [];
    const raw = async (localAddress?: string) => {
      const c = await rawClient(port, localAddress);
      open.push(c);
      return c;
    };
    const newLocker = async (title: string) => {
      const p = await createPostomat(
        cloud.storage.db,
        { title, shortId: `B${Math.random().toString(36).slice(2, 8).toUpperCase()}` },
        CELLS,
        new Date(),
      );
      return resetAgentCredentials(cloud.storage.db, p.id, new Date());
    };
    /** Closes this test's sockets and waits until the broker has let go of them (the cloud's own client has none). */
    const settle = async () => {
      for (const c of open.splice(0)) c.socket.destroy();
      await until('sockets released', () => cloud.sync.broker!.openConnections() === 0 || undefined);
    };

    before(async () => {
      cloud = await startTestCloud(dialect, {
        env: {
          MQTT_MAX_CONNECTIONS: '12',
          MQTT_MAX_CONNECTIONS_PER_ADDRESS: '5',
          MQTT_CONNECT_TIMEOUT_MS: '60000',
          MQTT_LOGIN_FAILURE_MAX: '5',
          MQTT_LOGIN_FAILURE_WINDOW_MS: '60000',
          SYNC_POLL_MS: '60000',
          EVENT_POLL_MS: '60000',
        },
        logger: createLogger({ level: 'debug', write: (l) => lines.push(JSON.parse(l)) }),
      });
      port = cloud.sync.broker!.port;
      a = await newLocker('Abuse A');
      b = await newLocker('Abuse B');
    });
    after(() => cloud.stop());

    describe('before login', () => {
      it('six unfinished CONNECTs announcing 250 MB each are refused at their headers: closed before 16 MB are taken, memory flat', async () => {
        const rssBefore = process.memoryUsage().rss;
        const clients = await Promise.all(Array.from({ length: 6 }, () => raw('127.0.0.2')));
        const head = Buffer.concat([Buffer.from([0x10]), Buffer.from([0x80, 0x80, 0x80, 0x77])]); // 250 MB remaining length
        const sent = await Promise.all(clients.map((c) => pushUntilClosed(c, head, 16 * MB)));
        for (const c of clients) await closedWithin(c, 'oversized CONNECT closed');
        for (const n of sent) assert.ok(n < 16 * MB, `the broker stopped reading after ${n} bytes`);
        assert.equal(refusals()['oversized-packet'], 6);
        const grown = process.memoryUsage().rss - rssBefore;
        assert.ok(grown < 48 * MB, `RSS grew ${Math.round(grown / MB)} MB`);
        await settle();
      });

      it('a CONNECT announced larger than MQTT_MAX_CONNECT_BYTES is closed at once; a real one is still answered', async () => {
        const before = refusals()['oversized-packet'];
        const c = await raw('127.0.0.2');
        await c.write(Buffer.from([0x10, 0x89, 0x27])); // 5,001 bytes announced, nothing sent after
        await closedWithin(c, 'big CONNECT closed');
        assert.equal(refusals()['oversized-packet'], before + 1);
        const ok = await raw('127.0.0.2');
        await ok.write(connectPacket({ clientId: `locker-${a.username}`, username: a.username, password: 'wrong' }));
        assert.equal(await ok.connack(), 4, 'bad user name or password');
        await settle();
      });

      it('what a client pipelines after its CONNECT before login counts against the same budget', async () => {
        const before = refusals()['oversized-packet'];
        const c = await raw('127.0.0.2');
        const connect = connectPacket({ clientId: `locker-${a.username}`, username: a.username, password: a.password });
        await c.write(Buffer.concat([connect, publishHead(topics.events(a.username), 8_192)]));
        await closedWithin(c, 'pipelined publish closed');
        assert.equal(await c.connack(), undefined, 'no CONNACK: the CONNECT never reached the broker');
        assert.equal(refusals()['oversized-packet'], before + 1);
        await settle();
      });

      it('one address is refused beyond MQTT_MAX_CONNECTIONS_PER_ADDRESS (CONNACK "server unavailable"), while another logs in and HTTP answers', async () => {
        const before = refusals()['address-cap'];
        const held = await Promise.all(Array.from({ length: 5 }, () => raw('127.0.0.3')));
        const sixth = await raw('127.0.0.3');
        assert.equal(await sixth.connack(), 3);
        await closedWithin(sixth, 'sixth closed');
        assert.ok(
          held.every((c) => !c.isClosed()),
          'the five within the cap stay',
        );
        assert.equal(refusals()['address-cap'], before + 1);

        const other = lockerClient(port, a, '127.0.0.4');
        assert.equal(await connectOutcome(other), undefined);
        await other.endAsync();
        assert.equal((await cloud.request('GET', '/health')).status, 200);
        await settle();
      });

      it('at MQTT_MAX_CONNECTIONS every address is refused', async () => {
        const before = refusals()['connection-cap'];
        // The cloud's own client holds no place (it connects in-process): 5 + 5 + 2 make 12.
        await Promise.all([
          ...Array.from({ length: 5 }, () => raw('127.0.0.5')),
          ...Array.from({ length: 5 }, () => raw('127.0.0.6')),
          raw('127.0.0.7'),
          raw('127.0.0.7'),
        ]);
        await until('12 open', () => cloud.sync.broker!.openConnections() === 12 || undefined);
        const late = await raw('127.0.0.8');
        assert.equal(await late.connack(), 3);
        assert.equal(refusals()['connection-cap'], before + 1);
        await settle();
        const again = await raw('127.0.0.8');
        await again.write(connectPacket({ clientId: `locker-${a.username}`, username: a.username, password: 'wrong' }));
        assert.equal(await again.connack(), 4, 'places freed are places again');
        await settle();
      });

      it('wrong passwords at rate: after MQTT_LOGIN_FAILURE_MAX the address is refused unchecked (the right password too), others log in, one window later it may again; no line per attempt', async () => {
        const r0 = refusals();
        const lines0 = refusalLines();
        const attempt = async (password: string, from: string) => {
          const c = await raw(from);
          await c.write(connectPacket({ clientId: `locker-${b.username}`, username: b.username, password }));
          const rc = await c.connack();
          c.socket.destroy();
          return rc;
        };
        for (let i = 0; i < 5; i++) assert.equal(await attempt(`guess-${i}`, '127.0.0.9'), 4);
        assert.equal(await attempt(b.password, '127.0.0.9'), 3, 'refused before the password is looked at');
        assert.equal(await attempt('guess-6', '127.0.0.9'), 3);
        assert.equal(refusals()['bad-login'], r0['bad-login'] + 5, 'only five passwords were checked');
        assert.equal(refusals()['login-backoff'], r0['login-backoff'] + 2);
        assert.equal(await attempt(b.password, '127.0.0.10'), 0, 'another address logs in');
        assert.ok(refusalLines() - lines0 <= 1, `${refusalLines() - lines0} log lines for 7 refusals`);

        (cloud.clock as ManualClock).advance(60_000);
        assert.equal(await attempt(b.password, '127.0.0.9'), 0, 'the window ended by itself');
        await settle();
      });

      it('twenty concurrent guesses from one address: five are checked, the rest refused unchecked', async () => {
        const r0 = refusals();
        const codes = await Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            const c = await raw('127.0.0.11');
            await c.write(
              connectPacket({ clientId: `locker-${b.username}`, username: b.username, password: `guess-${i}` }),
            );
            return c.connack();
          }),
        );
        assert.equal(codes.filter((rc) => rc === 4).length, 5);
        assert.equal(codes.filter((rc) => rc === 3).length, 15);
        assert.equal(refusals()['bad-login'], r0['bad-login'] + 5);
        await settle();
      });
    });

    describe('after login', () => {
      it('a logged-in locker announcing a 100 MB packet is refused at its header; another locker is served', async () => {
        const before = refusals()['oversized-packet'];
        const c = await raw('127.0.0.12');
        await c.write(connectPacket({ clientId: `locker-${a.username}`, username: a.username, password: a.password }));
        assert.equal(await c.connack(), 0);
        const sent = await pushUntilClosed(c, publishHead(topics.events(a.username), 100 * MB), 16 * MB);
        await closedWithin(c, 'oversized publish closed');
        assert.ok(sent < 16 * MB, `the broker stopped reading after ${sent} bytes`);
        assert.equal(refusals()['oversized-packet'], before + 1);

        const other = lockerClient(port, b, '127.0.0.12');
        assert.equal(await connectOutcome(other), undefined);
        await other.publishAsync(
          topics.connection(b.username),
          JSON.stringify({
            v: CONTRACT_VERSION,
            online: true,
            agentVersion: 'abuse',
            syncVersion: 0,
            at: new Date().toISOString(),
          }),
          { qos: 1 },
        );
        await until(
          'B online',
          async () =>
            (
              await cloud.storage.db
                .selectFrom('locker_link')
                .select('online')
                .where('postomatId', '=', b.username)
                .executeTakeFirst()
            )?.online === 1 || undefined,
        );
        await other.endAsync();
        await settle();
      });

      it('a message over MQTT_MAX_PACKET_BYTES closes the connection; one under it that breaks the contract is dropped without an ack, and the next is applied', async () => {
        const client = lockerClient(port, a, '127.0.0.13');
        assert.equal(await connectOutcome(client), undefined);
        const acks: string[] = [];
        client.on('message', (_t, p) => acks.push(JSON.parse(p.toString()).eventId));
        await client.subscribeAsync(topics.acks(a.username), { qos: 1 });
        const event = (eventId: string) => ({
          v: CONTRACT_VERSION,
          eventId,
          seq: 1,
          type: 'CELL_FAULT',
          cellId: '1',
          fault: 'JAMMED',
          at: new Date().toISOString(),
        });

        const logged = lines.length;
        await client.publishAsync(topics.events(a.username), JSON.stringify(event('x'.repeat(200_000))), { qos: 1 });
        await client.publishAsync(topics.events(a.username), JSON.stringify(event('after-big-1')), { qos: 1 });
        await until('the valid event acked', () => (acks.includes('after-big-1') ? true : undefined));
        assert.deepEqual(acks, ['after-big-1'], 'the oversized id was never acknowledged');
        const stored = await cloud.storage.db
          .selectFrom('locker_event')
          .select('eventId')
          .where('postomatId', '=', a.username)
          .execute();
        assert.deepEqual(
          stored.map((e) => e.eventId),
          ['after-big-1'],
        );
        const longest = Math.max(...lines.slice(logged).map((l) => JSON.stringify(l).length));
        assert.ok(longest < 2_000, `a log line of ${longest} characters`);

        const before = refusals()['oversized-packet'];
        const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
        client.publish(topics.events(a.username), Buffer.alloc(300 * 1024, 0x20), { qos: 0 });
        await closed;
        assert.equal(refusals()['oversized-packet'], before + 1);
        client.end(true);
        await settle();
      });

      it("publishing on another locker's topics, on the cloud's, or outside lockers/ closes the connection and changes nothing", async () => {
        const forbidden = [
          topics.events(b.username),
          topics.connection(b.username),
          topics.acks(a.username),
          topics.sync(a.username),
          topics.commands(a.username),
          'lockers/x/events',
          '$SYS/broker/x',
          'other',
        ];
        const before = refusals()['publish-denied'];
        for (const topic of forbidden) {
          const client = lockerClient(port, a, '127.0.0.14');
          assert.equal(await connectOutcome(client), undefined);
          const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
          const forged = {
            v: CONTRACT_VERSION,
            eventId: `forged-${forbidden.indexOf(topic)}`,
            seq: 1,
            type: 'CELL_FAULT',
            cellId: '1',
            fault: 'JAMMED',
            at: new Date().toISOString(),
          };
          client.publish(topic, JSON.stringify(forged), { qos: 1 });
          await closed;
          client.end(true);
        }
        assert.equal(refusals()['publish-denied'], before + forbidden.length);
        await cloud.sync.inbound.idle();
        const forged = await cloud.storage.db
          .selectFrom('locker_event')
          .select('eventId')
          .where('eventId', 'like', 'forged-%')
          .execute();
        assert.equal(forged.length, 0);
        await settle();
      });

      it("subscribing to another locker's topics, its own outbound ones, or any wildcard is refused filter by filter (0x80)", async () => {
        const client = lockerClient(port, a, '127.0.0.15');
        assert.equal(await connectOutcome(client), undefined);
        const filters = [
          topics.acks(a.username),
          topics.sync(b.username),
          topics.events(a.username),
          topics.connection(a.username),
          `lockers/${a.username}/+`,
          'lockers/+/sync',
          'lockers/#',
          '#',
          '$SYS/#',
        ];
        const granted = await client
          .subscribeAsync(Object.fromEntries(filters.map((f) => [f, { qos: 1 as const }])))
          .then(
            (g) => g.map((x) => x.qos),
            (err) => err.packet.granted,
          );
        assert.deepEqual(granted, [1, 128, 128, 128, 128, 128, 128, 128, 128]);
        await client.endAsync();
        await settle();
      });
    });
  });

  describe(`[${dialect.name}] the CONNECT deadline`, () => {
    let cloud: TestCloud;
    before(async () => {
      cloud = await startTestCloud(dialect, { env: { MQTT_CONNECT_TIMEOUT_MS: '300' } });
    });
    after(() => cloud.stop());

    it('an idle socket and a half-sent CONNECT are closed at MQTT_CONNECT_TIMEOUT_MS; a prompt CONNECT is answered', async () => {
      const port = cloud.sync.broker!.port;
      const idle = await rawClient(port, '127.0.0.20');
      const half = await rawClient(port, '127.0.0.20');
      await half.write(connectPacket({ clientId: 'locker-x', username: 'x', password: 'y' }).subarray(0, 10));
      const prompt = await rawClient(port, '127.0.0.20');
      await prompt.write(connectPacket({ clientId: 'locker-x', username: 'x', password: 'y' }));
      assert.equal(await prompt.connack(), 4);
      await closedWithin(idle, 'idle socket closed');
      await closedWithin(half, 'half-open CONNECT closed');
      assert.equal(cloud.sync.broker!.refusals()['connect-timeout'], 2);
      prompt.socket.destroy();
    });
  });
}
