/**
 * Every MQTT message the cloud and a real agent send during an order's life (the real stack:
 * HTTP API, embedded broker, agent over pseudo-terminals, simulated locker) validates against the
 * AsyncAPI document's payload schema of its topic, goes in the direction the document gives the
 * topic, and with its QoS and retain flag (issue 17). The messages are recorded where both sides
 * hand them to MQTT (MqttLink.publish, which they share) and still go out unchanged.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { IClientPublishOptions } from 'mqtt';
import { MqttLink } from '../../shared/mqtt/link.ts';
import { parseLockerTopic } from '../../shared/mqtt/index.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { typeAndWaitOpen, waitForDisplay } from '../helpers/sim-harness.ts';
import {
  codesOf,
  orderRow,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type SyncWorld,
} from '../sync/harness.ts';
import { DirectLink } from '../../cloud/sync/direct-link.ts';
import { ASYNCAPI_FILE, readDocument } from './against-document.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { subtractOrderByStaff } from '../../cloud/services/admin/orders.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Sent {
  by: 'cloud' | 'agent';
  topic: string;
  body: unknown;
  options: IClientPublishOptions | undefined;
}

describe('MQTT messages match the AsyncAPI document', () => {
  const sent: Sent[] = [];
  const original = MqttLink.prototype.publish;
  // The cloud publishes from inside its embedded broker (cloud/sync/direct-link.ts), the agents with a client.
  const originalDirect = DirectLink.prototype.publish;
  let w: SyncWorld;
  let sim: SimLocker;
  let lockerId: string;

  before(async () => {
    MqttLink.prototype.publish = function (
      this: MqttLink,
      topic: string,
      body: unknown,
      options?: IClientPublishOptions,
    ) {
      const username = (
        this as unknown as { options: { clientOptions: () => { username?: string } } }
      ).options.clientOptions().username;
      sent.push({
        by: username === '$cloud' ? 'cloud' : 'agent',
        topic,
        body: JSON.parse(JSON.stringify(body)),
        options,
      });
      return original.call(this, topic, body, options);
    };
    DirectLink.prototype.publish = function (
      this: DirectLink,
      topic: string,
      body: unknown,
      options?: { qos?: 0 | 1 },
    ) {
      sent.push({ by: 'cloud', topic, body: JSON.parse(JSON.stringify(body)), options });
      return originalDirect.call(this, topic, body, options);
    };
    w = await startSyncWorld(DIALECTS[0]);
    const locker = await w.newLocker();
    lockerId = locker.id;
    sim = await w.startAgent(locker);
    await untilOnline(w, locker.id);
  });
  after(async () => {
    MqttLink.prototype.publish = original;
    DirectLink.prototype.publish = originalDirect;
    await w?.close();
  });

  it('an order placed, a wrong code, a pickup and a staff subtraction: every message valid, in its direction, with its QoS and retain', async () => {
    const created = await w.createOrder(lockerId);
    const codes = await codesOf(w, created.id);
    await untilAgent(sim, created.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
    const from = sim.displayLines.length;
    await sim.typeCode(codes.DOWN === '0000' ? '1111' : '0000');
    await waitForDisplay(sim, /./, from);
    const cell = await typeAndWaitOpen(sim, codes.DOWN);
    await useCell(sim, cell, true);
    await until('DELIVERED', async () =>
      (await orderRow(w.db, created.id)).status === 'DELIVERED' ? true : undefined,
    );
    await untilAgent(sim, created.id, 'DELIVERED', (o) => o?.status === 'DELIVERED');
    const picked = await typeAndWaitOpen(sim, codes.UP);
    await useCell(sim, picked, false);
    await until('COMPLETED', async () =>
      (await orderRow(w.db, created.id)).status === 'COMPLETED' ? true : undefined,
    );
    await until('the last ack', () => (sent.filter((s) => s.topic.endsWith('/acks')).length >= 2 ? true : undefined));

    // Staff take a second parcel back: a command to the locker and its response.
    const second = await w.createOrder(lockerId);
    const secondCodes = await codesOf(w, second.id);
    await untilAgent(sim, second.id, 'second order known', (o) => o?.codes.DOWN === secondCodes.DOWN);
    await useCell(sim, await typeAndWaitOpen(sim, secondCodes.DOWN), true);
    await until('second DELIVERED', async () =>
      (await orderRow(w.db, second.id)).status === 'DELIVERED' ? true : undefined,
    );
    await subtractOrderByStaff(w.cloud.deps.uow, second.id, new Date());
    await until('the command answered', () => (sent.some((s) => s.topic.endsWith('/responses')) ? true : undefined));

    const doc = readDocument(ASYNCAPI_FILE);
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    const problems: string[] = [];
    for (const s of sent) {
      const parsed = parseLockerTopic(s.topic);
      if (!parsed) {
        problems.push(`${s.by} published on ${s.topic}, which the document does not name`);
        continue;
      }
      const operation = Object.values(doc.operations as Record<string, any>).find(
        (o) => o.channel.$ref === `#/channels/${parsed.name}`,
      );
      const expected = s.by === 'agent' ? 'send' : 'receive';
      if (operation.action !== expected)
        problems.push(`${s.by} published on ${parsed.name}, documented as ${operation.action} for the agent`);
      const binding = operation.bindings.mqtt;
      if ((s.options?.qos ?? 0) !== binding.qos || (s.options?.retain ?? false) !== binding.retain) {
        problems.push(
          `${parsed.name}: qos ${s.options?.qos} retain ${s.options?.retain}, documented qos ${binding.qos} retain ${binding.retain}`,
        );
      }
      const validate = ajv.compile(doc.components.messages[`${parsed.name}Message`].payload);
      if (!validate(s.body))
        problems.push(`${parsed.name}: ${ajv.errorsText(validate.errors)} — ${JSON.stringify(s.body).slice(0, 300)}`);
    }
    assert.deepEqual(problems, []);
    const seen = new Set(sent.map((s) => parseLockerTopic(s.topic)?.name));
    for (const topic of ['connection', 'cells', 'events', 'acks', 'sync', 'commands', 'responses', 'health'])
      assert.ok(seen.has(topic as never), `no message on ${topic} was seen`);
    const events = sent.filter((s) => s.topic.endsWith('/events')).map((s) => (s.body as { type: string }).type);
    for (const type of ['CODE_REJECTED', 'PLACED', 'PICKED_UP'])
      assert.ok(events.includes(type), `no ${type} event (saw ${events.join(', ')})`);
  });
});
