/**
 * The cloud's link inside its embedded broker (cloud/sync/direct-link.ts), against the real
 * broker and a real MQTT client on a socket: retained messages published before it subscribed
 * reach it as a SUBSCRIBE would get them, live ones follow, what it publishes reaches a
 * subscriber at QoS 1, and it follows the broker through a restart (detach, attach) and stops
 * receiving once stopped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { silentLogger } from '../../cloud/logger.ts';
import { CLOUD_USERNAME, startEmbeddedBroker, type EmbeddedBroker } from '../../cloud/sync/broker.ts';
import { DEFAULT_BROKER_LIMITS } from '../../cloud/sync/broker-limits.ts';
import { AgentCredentials } from '../../cloud/sync/credentials.ts';
import { DirectLink } from '../../cloud/sync/direct-link.ts';
import { systemClock } from '../../shared/clock.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { until } from './harness.ts';

describe('the direct link inside the embedded broker', () => {
  let storage: TestStorage;
  let broker: EmbeddedBroker;
  let peer: mqtt.MqttClient;
  const start = (port = 0, cloudSecret?: string) =>
    startEmbeddedBroker({
      port,
      host: '127.0.0.1',
      credentials: new AgentCredentials(storage.db),
      logger: silentLogger,
      clock: systemClock,
      limits: DEFAULT_BROKER_LIMITS,
      cloudSecret,
    });

  before(async () => {
    storage = await openTestStorage(DIALECTS[0]!);
    broker = await start();
    // A peer with the cloud's login over a real socket: it may publish and subscribe anywhere.
    peer = await mqtt.connectAsync(broker.url, {
      username: CLOUD_USERNAME,
      password: broker.cloudSecret,
      reconnectPeriod: 0,
    });
  });
  after(async () => {
    await peer.endAsync(true);
    await broker.close();
    await storage.destroy();
  });

  it('gets retained messages from before it subscribed, then live ones, and publishes at QoS 1', async () => {
    await peer.publishAsync('lockers/L1/connection', JSON.stringify({ online: true }), { qos: 1, retain: true });
    const link = new DirectLink(broker.serverSide, silentLogger);
    const heard: string[] = [];
    link.on('message', (topic, payload) => heard.push(`${topic} ${payload.toString()}`));
    const connected = new Promise<void>((resolve) => link.once('connect', resolve));
    link.start();
    await connected;
    assert.equal(link.connected, true);
    await link.subscribe(['lockers/+/connection']);
    assert.deepEqual(heard, ['lockers/L1/connection {"online":true}'], 'the retained message, as a SUBSCRIBE gets it');
    await peer.publishAsync('lockers/L2/connection', JSON.stringify({ online: false }), { qos: 1 });
    await until('the live message', () => (heard.length === 2 ? true : undefined));
    assert.equal(heard[1], 'lockers/L2/connection {"online":false}');

    const received: Array<{ topic: string; body: string; qos: number }> = [];
    await peer.subscribeAsync('lockers/L1/sync', { qos: 1 });
    peer.on('message', (topic, payload, packet) => received.push({ topic, body: payload.toString(), qos: packet.qos }));
    assert.equal(await link.publish('lockers/L1/sync', { v: 1, version: 3 }), true);
    await until('the peer gets it', () => (received.length ? true : undefined));
    assert.deepEqual(received, [{ topic: 'lockers/L1/sync', body: '{"v":1,"version":3}', qos: 1 }]);
    await link.stop();
    assert.equal(await link.publish('lockers/L1/sync', {}), false, 'stopped: nothing is published');
    await peer.publishAsync('lockers/L3/connection', '{}', { qos: 1 });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(heard.length, 2, 'stopped: unsubscribed');
  });

  it('follows the broker through a restart in the process', async () => {
    const link = new DirectLink(broker.serverSide, silentLogger);
    const events: string[] = [];
    link.on('connect', () => events.push('connect'));
    link.on('close', () => events.push('close'));
    link.on('message', (topic) => events.push(topic));
    link.start();
    await until('connected', () => (events.includes('connect') ? true : undefined));
    await link.subscribe(['lockers/+/events']);
    link.detach();
    assert.equal(link.connected, false);
    assert.equal(await link.publish('lockers/L1/sync', {}), false, 'no broker: not published');
    await assert.rejects(link.subscribe(['lockers/+/events']), /not connected/);
    const { port, cloudSecret } = broker;
    await peer.endAsync(true);
    await broker.close();
    broker = await start(port, cloudSecret);
    link.attach(broker.serverSide);
    await until('connected again', () => (events.filter((e) => e === 'connect').length === 2 ? true : undefined));
    await link.subscribe(['lockers/+/events']);
    peer = await mqtt.connectAsync(broker.url, { username: CLOUD_USERNAME, password: cloudSecret, reconnectPeriod: 0 });
    await peer.publishAsync('lockers/L9/events', '{}', { qos: 1 });
    await until('the new broker delivers', () => (events.includes('lockers/L9/events') ? true : undefined));
    assert.deepEqual(events.slice(0, 3), ['connect', 'close', 'connect']);
    await link.stop();
  });
});
