import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, type CellsMessage, type HealthMessage } from '../../shared/mqtt/index.ts';
import type { MqttConnect } from '../../shared/mqtt/link.ts';
import { HealthSchedule, healthChanged } from '../../locker-agent/health.ts';
import { AgentSync } from '../../locker-agent/sync.ts';
import type { AgentSyncPort } from '../../locker-agent/sync-port.ts';
import type { Clock } from '../../locker-agent/clock.ts';
import { silentLogger } from '../../cloud/logger.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { startSyncWorld, until, type SyncWorld } from '../sync/harness.ts';

const MINUTE = 60_000;

function report(
  over: Partial<HealthMessage> = {},
  board: Partial<HealthMessage['boards'][number]> = {},
): HealthMessage {
  return {
    v: CONTRACT_VERSION,
    at: '2026-11-26T08:00:00.000Z',
    agentVersion: '1.4.0',
    uptimeSeconds: 600,
    outboxSize: 0,
    storeBytes: 200_000,
    boards: [
      { board: 0, online: true, timeouts: 0, checksumErrors: 0, lastAnswerAt: '2026-11-26T08:00:00.000Z', ...board },
    ],
    ...over,
  };
}

describe('health reports: what a periodic look sends', () => {
  it("the time, the uptime and the boards' last answers are no change; counters, outbox, store, boards and version are", () => {
    const base = report();
    assert.equal(
      healthChanged(
        base,
        report({ at: '2026-11-26T09:00:00.000Z', uptimeSeconds: 4200 }, { lastAnswerAt: '2026-11-26T09:00:00.000Z' }),
      ),
      false,
    );
    assert.equal(
      healthChanged(base, report({ storeBytes: 200_000 + 1024 * 1024 - 1 })),
      false,
      'a store under a megabyte bigger',
    );
    assert.equal(healthChanged(base, report({ storeBytes: 200_000 + 1024 * 1024 })), true, 'a megabyte bigger');
    assert.equal(healthChanged(base, report({ outboxSize: 3 })), true);
    assert.equal(healthChanged(base, report({ agentVersion: '1.5.0' })), true);
    assert.equal(healthChanged(base, report({}, { timeouts: 1 })), true);
    assert.equal(healthChanged(base, report({}, { checksumErrors: 2 })), true);
    assert.equal(healthChanged(base, report({}, { online: false })), true);
    assert.equal(healthChanged(base, report({ boards: [...base.boards, { ...base.boards[0], board: 1 }] })), true);
  });

  it('the schedule sends the first report, then a changed one, and an unchanged one only once the heartbeat is due', () => {
    const s = new HealthSchedule(6 * 60 * MINUTE);
    assert.equal(s.due(report(), 0), true, 'nothing sent yet');
    s.sent(report(), 0);
    assert.equal(s.due(report({ uptimeSeconds: 1500 }), 15 * MINUTE), false);
    assert.equal(s.due(report({}, { timeouts: 4 }), 15 * MINUTE), true);
    assert.equal(s.due(report(), 6 * 60 * MINUTE - 1), false);
    assert.equal(s.due(report(), 6 * 60 * MINUTE), true);
  });
});

/**
 * The agent's time with its long waits held: the health look (15 minutes) fires when the test
 * says, while the MQTT link's short timers (reconnection, event resends) run for real.
 */
function heldClock() {
  let offset = 0;
  const held = new Map<symbol, { fn: () => void; ms: number }>();
  const clock: Clock = {
    now: () => Date.now() + offset,
    setTimeout(fn, ms) {
      if (ms < MINUTE) return setTimeout(fn, ms);
      const handle = Symbol('held');
      held.set(handle, { fn, ms });
      return handle;
    },
    clearTimeout(handle) {
      if (typeof handle === 'symbol') held.delete(handle);
      else clearTimeout(handle as NodeJS.Timeout);
    },
  };
  return {
    clock,
    /** moves the time on by the longest held wait and runs what was waiting */
    waiting: () => held.size,
    fire() {
      const due = [...held.entries()];
      if (!due.length) return 0;
      held.clear();
      offset += Math.max(...due.map(([, t]) => t.ms));
      for (const [, t] of due) t.fn();
      return due.length;
    },
  };
}

class FakePort extends EventEmitter implements AgentSyncPort {
  health = report();
  applySync() {
    return { applied: true, version: 0 };
  }
  async handleCommand(): Promise<never> {
    throw new Error('no commands here');
  }
  ack() {
    return false;
  }
  pendingEvents() {
    return [];
  }
  syncVersion() {
    return 0;
  }
  cellsMessage(): CellsMessage {
    return { v: CONTRACT_VERSION, at: new Date().toISOString(), cells: [] };
  }
  healthMessage() {
    return this.health;
  }
}

describe('health reports over the real link: a healthy locker stays quiet', () => {
  let w: SyncWorld;
  let sync: AgentSync;
  const port = new FakePort();
  const time = heldClock();
  const sent: HealthMessage[] = [];

  before(async () => {
    w = await startSyncWorld(DIALECTS[0]);
    const locker = await w.newLocker();
    // The real mqtt.js client on the cloud's broker; only its health publishes are noted.
    const connect: MqttConnect = (url, options) => {
      const client = mqtt.connect(url, options);
      const publishAsync = client.publishAsync.bind(client);
      client.publishAsync = ((topic: string, body: string | Buffer, opts?: mqtt.IClientPublishOptions) => {
        if (topic.endsWith('/health')) sent.push(JSON.parse(String(body)));
        return publishAsync(topic, body, opts);
      }) as typeof client.publishAsync;
      return client;
    };
    sync = new AgentSync(
      port,
      {
        lockerId: locker.id,
        mqttUrl: w.mqttUrl,
        username: locker.agent.username,
        password: locker.agent.password,
        agentVersion: '1.4.0',
        healthMs: 15 * MINUTE,
        healthHeartbeatMs: 60 * MINUTE,
      },
      { connect, clock: time.clock, log: silentLogger },
    );
    sync.start();
    await until('first health report', () => sent.length === 1 || undefined);
  });
  after(async () => {
    await sync.stop();
    await w.close();
  });

  it('sends on connecting, skips unchanged looks, sends a change, a silent board at once, and the heartbeat', async () => {
    const looks = async (n: number) => {
      for (let i = 0; i < n; i++) {
        // The next look is set once the previous one has finished (and its publish was answered).
        await until('the next health look set', () => time.waiting() === 1 || undefined);
        assert.equal(time.fire(), 1, 'one health look waiting');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // Three looks, 45 minutes: the report moved only in its time and uptime.
    port.health = report({ uptimeSeconds: 2700 });
    await looks(2);
    assert.equal(sent.length, 1, 'unchanged: nothing sent');

    port.health = report({ uptimeSeconds: 3600 }, { timeouts: 2 });
    await looks(1);
    await until('the changed report', () => sent.length === 2 || undefined);
    assert.equal(sent[1].boards[0].timeouts, 2);

    port.health = report({ uptimeSeconds: 3700 }, { timeouts: 2, online: false });
    port.emit('health');
    await until('the silent board at once', () => sent.length === 3 || undefined);
    assert.equal(sent[2].boards[0].online, false);

    // Unchanged since: quiet until an hour has passed since the last report sent.
    await looks(3);
    assert.equal(sent.length, 3, '45 minutes unchanged');
    await looks(1);
    await until('the heartbeat', () => sent.length === 4 || undefined);

    const stored = await until('the cloud holds the newest report', async () => {
      await w.cloud.sync.inbound.idle();
      const row = await w.db
        .selectFrom('locker_health')
        .select('report')
        .where('postomatId', '=', sync['options'].lockerId)
        .executeTakeFirst();
      return row && JSON.parse(row.report).boards[0].online === false ? row : undefined;
    });
    assert.ok(stored);
  });
});
