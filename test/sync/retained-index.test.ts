/**
 * A locker's SUBSCRIBE to its own topics finds their retained messages by topic, not by testing
 * every retained message of the fleet (cloud/sync/retained-index.ts). Through the embedded broker
 * and real MQTT clients: exact topics, several at once, a cleared one, and wildcards as before.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { silentLogger } from '../../cloud/logger.ts';
import { CLOUD_USERNAME, startEmbeddedBroker, type EmbeddedBroker } from '../../cloud/sync/broker.ts';
import { DEFAULT_BROKER_LIMITS } from '../../cloud/sync/broker-limits.ts';
import { AgentCredentials } from '../../cloud/sync/credentials.ts';
import { withRetainedIndex } from '../../cloud/sync/retained-index.ts';
import { ManualClock } from '../../shared/clock.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';

const LOCKERS = 300;
const topic = (i: number, name: string) => `lockers/l${i}/${name}`;

describe('retained messages by topic', () => {
  let storage: TestStorage;
  let broker: EmbeddedBroker;
  let publisher: MqttClient;
  const connect = (id: string) =>
    mqtt.connectAsync(`mqtt://127.0.0.1:${broker.port}`, {
      clientId: id,
      username: CLOUD_USERNAME,
      password: broker.cloudSecret,
      reconnectPeriod: 0,
    });
  /** Subscribes a fresh client and collects what arrives until `count` messages have (or `ms` passed). */
  async function retainedFor(patterns: string[], count: number): Promise<Array<[string, string]>> {
    const c = await connect(`reader-${Math.random().toString(36).slice(2)}`);
    const got: Array<[string, string]> = [];
    const done = new Promise<void>((resolve) =>
      c.on('message', (t, p) => {
        got.push([t, p.toString()]);
        if (got.length >= count) resolve();
      }),
    );
    await c.subscribeAsync(patterns, { qos: 1 });
    await done;
    await c.endAsync();
    return got;
  }

  before(async () => {
    storage = await openTestStorage(DIALECTS[0]);
    broker = await startEmbeddedBroker({
      port: 0,
      host: '127.0.0.1',
      credentials: new AgentCredentials(storage.db),
      logger: silentLogger,
      clock: new ManualClock(new Date()),
      limits: DEFAULT_BROKER_LIMITS,
    });
    publisher = await connect('publisher');
    for (let i = 0; i < LOCKERS; i++) {
      for (const name of ['connection', 'health'])
        await publisher.publishAsync(topic(i, name), `${name} ${i}`, { qos: 1, retain: true });
    }
    await publisher.publishAsync(topic(7, 'health'), '', { qos: 1, retain: true });
  });
  after(async () => {
    await publisher.endAsync();
    await broker.close();
    await storage.destroy();
  });

  it('an exact topic gets its own retained message', async () => {
    assert.deepEqual(await retainedFor([topic(42, 'connection')], 1), [[topic(42, 'connection'), 'connection 42']]);
  });

  it('several exact topics at once, a cleared one giving nothing', async () => {
    // The cleared topic first: its message, were it kept, would come before the others.
    const got = await retainedFor([topic(7, 'health'), topic(8, 'health'), topic(9, 'connection')], 2);
    assert.deepEqual(got.sort(), [
      [topic(8, 'health'), 'health 8'],
      [topic(9, 'connection'), 'connection 9'],
    ]);
  });

  it('a wildcard subscription still gets every matching retained message', async () => {
    const got = await retainedFor(['lockers/+/health'], LOCKERS - 1);
    assert.equal(got.length, LOCKERS - 1);
    assert.ok(!got.some(([t]) => t === topic(7, 'health')), 'the cleared one is not among them');
  });

  it('exact patterns never walk the persistence; wildcards do', async () => {
    let walked = 0;
    const store = withRetainedIndex({
      storeRetained: (_p: unknown, cb?: (err: Error | null) => void) => cb?.(null),
      createRetainedStreamCombi: (_patterns: string[]) => {
        walked++;
        return Readable.from([]);
      },
    });
    store.storeRetained({ topic: 'a/b', payload: Buffer.from('x') });
    const exact = await store.createRetainedStreamCombi(['a/b', 'a/c']).toArray();
    assert.deepEqual(
      exact.map((p: { topic: string }) => p.topic),
      ['a/b'],
    );
    assert.equal(walked, 0);
    await store.createRetainedStreamCombi(['a/+']).toArray();
    assert.equal(walked, 1);
  });
});
