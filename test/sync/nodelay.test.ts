/**
 * Small MQTT packets leave at once: the embedded broker and every MQTT link (the cloud's and the
 * agent's) turn Nagle's algorithm off on their sockets. With it on, a publish that followed
 * another one waited for the first one's ACK, which Linux delays up to 40 ms: a door event took
 * ~50 ms to reach the cloud instead of ~9 (bench:peak). Observed on the sockets themselves: no
 * socket option is readable from Node, so the calls that set it are recorded.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { silentLogger } from '../../cloud/logger.ts';
import { startEmbeddedBroker, CLOUD_USERNAME, type EmbeddedBroker } from '../../cloud/sync/broker.ts';
import { DEFAULT_BROKER_LIMITS } from '../../cloud/sync/broker-limits.ts';
import { AgentCredentials } from '../../cloud/sync/credentials.ts';
import { ManualClock } from '../../shared/clock.ts';
import { MqttLink } from '../../shared/mqtt/link.ts';
import { eventually } from '../helpers/receiver.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';

describe("Nagle's algorithm is off on the broker's and the links' sockets", () => {
  let storage: TestStorage;
  let broker: EmbeddedBroker;
  const calls: Array<{ server: boolean; on: boolean }> = [];
  const original = net.Socket.prototype.setNoDelay;
  before(async () => {
    net.Socket.prototype.setNoDelay = function (this: net.Socket & { server?: unknown }, on?: boolean) {
      calls.push({ server: this.server !== undefined && this.server !== null, on: on !== false });
      return original.call(this, on);
    };
    storage = await openTestStorage(DIALECTS[0]);
    broker = await startEmbeddedBroker({
      port: 0,
      host: '127.0.0.1',
      credentials: new AgentCredentials(storage.db),
      logger: silentLogger,
      clock: new ManualClock(new Date()),
      limits: DEFAULT_BROKER_LIMITS,
    });
  });
  after(async () => {
    net.Socket.prototype.setNoDelay = original;
    await broker.close();
    await storage.destroy();
  });

  it('the embedded broker sets it on every connection it accepts', async () => {
    const from = calls.length;
    const socket = net.connect(broker.port, '127.0.0.1');
    try {
      await eventually(
        () =>
          assert.ok(
            calls.slice(from).some((c) => c.server && c.on),
            'the accepted socket asked for TCP_NODELAY',
          ),
        3_000,
      );
    } finally {
      socket.destroy();
    }
  });

  it("an MQTT link sets it on its client's socket, on every connection", async () => {
    const streams: unknown[] = [];
    const link = new MqttLink(
      {
        url: `mqtt://127.0.0.1:${broker.port}`,
        clientOptions: () => ({
          clientId: `cloud-nodelay-${streams.length}`,
          username: CLOUD_USERNAME,
          password: broker.cloudSecret,
          clean: true,
        }),
      },
      {
        connect: (url, options) => {
          const client = mqtt.connect(url, options);
          streams.push(client.stream);
          return client;
        },
        timers: { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
        log: silentLogger,
      },
    );
    const from = calls.length;
    const connected = new Promise<void>((resolve) => link.once('connect', () => resolve()));
    link.start();
    try {
      await connected;
      assert.equal(streams.length, 1);
      assert.ok(
        calls.slice(from).some((c) => !c.server && c.on),
        'the client socket asked for TCP_NODELAY',
      );
    } finally {
      await link.stop();
    }
  });
});
