/**
 * Several cloud instances on one PostgreSQL database and one Mosquitto: the broker configured
 * with docs/mosquitto/acl plus one user per cloud process (the documented ACL's rule when
 * use_username_as_clientid is on) and a read-only monitor that counts what the clouds publish;
 * clouds started as their own processes (`npm run cloud`), so one can be killed.
 */
import fs from 'node:fs';
import path from 'node:path';
import mqtt from 'mqtt';
import { DOCUMENTED_ACL, mosquittoInstalled, startMosquitto, type PrivateMosquitto } from '../helpers/mosquitto.ts';
import { CloudProcess } from '../soak/cloud-process.ts';
import type { LogCapture } from '../helpers/secrets-scan.ts';
import type { TestResponse } from '../helpers/cloud.ts';

export const MONITOR = { username: 'plk-monitor', password: 'monitor-secret-for-tests' };
export const cloudUser = (n: number) => ({ username: `plk-cloud-${n}`, password: `cloud-${n}-secret-for-tests` });

/** Why the suite cannot run here, or undefined when it can. */
export function missingParts(): string | undefined {
  if (!process.env.TEST_DATABASE_URL)
    return "set TEST_DATABASE_URL to a PostgreSQL database (several instances share one; SQLite is one machine's)";
  if (!mosquittoInstalled()) return 'install mosquitto (the suite starts its own, configured with docs/mosquitto/acl)';
  return undefined;
}

/** A private Mosquitto whose ACL is the documented one plus `instances` cloud users and the monitor. */
export async function startScaleBroker(instances: number): Promise<PrivateMosquitto> {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'plk-scale-acl-'));
  const acl = path.join(dir, 'acl');
  const extra = [...Array(instances).keys()]
    .map((i) => `\nuser ${cloudUser(i + 1).username}\ntopic readwrite lockers/#\n`)
    .join('');
  fs.writeFileSync(
    acl,
    `${fs.readFileSync(DOCUMENTED_ACL, 'utf8') + extra}\nuser ${MONITOR.username}\ntopic read lockers/#\n`,
  );
  try {
    const broker = await startMosquitto({ aclFile: acl });
    for (let i = 1; i <= instances; i++) await broker.allow(cloudUser(i).username, cloudUser(i).password);
    await broker.allow(MONITOR.username, MONITOR.password);
    return broker;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Counts every message the clouds publish to lockers, per topic and body. */
export class BrokerMonitor {
  readonly messages: Array<{ topic: string; body: any }> = [];
  private constructor(private readonly client: mqtt.MqttClient) {}

  static async start(url: string): Promise<BrokerMonitor> {
    const client = await mqtt.connectAsync(url, { ...MONITOR, reconnectPeriod: 0, clean: true });
    const m = new BrokerMonitor(client);
    client.on('message', (topic, payload) => {
      let body: unknown;
      try {
        body = JSON.parse(payload.toString());
      } catch {
        body = payload.toString();
      }
      m.messages.push({ topic, body });
    });
    await client.subscribeAsync(['lockers/+/sync', 'lockers/+/commands', 'lockers/+/acks'], { qos: 1 });
    return m;
  }

  of(topic: string): any[] {
    return this.messages.filter((x) => x.topic === topic).map((x) => x.body);
  }

  stop(): Promise<void> {
    return this.client.endAsync();
  }
}

/** A cloud process of the suite: DATABASE_URL, the broker and its own MQTT user. */
export async function cloudProcess(n: number, env: Record<string, string>, logs: LogCapture): Promise<CloudProcess> {
  const user = cloudUser(n);
  const cloud = await CloudProcess.create(
    { ...env, MQTT_USERNAME: user.username, MQTT_PASSWORD: user.password, METRICS_PORT: '0' },
    logs,
  );
  await cloud.start();
  return cloud;
}

/** `cloud.request` of test/helpers/cloud.ts, for any instance's URL. */
export function requester(base: string) {
  return async (
    method: string,
    path: string,
    o: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(base + path, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    const text = await res.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    let requestId: string | undefined;
    if (body && typeof body === 'object' && 'requestId' in body) ({ requestId, ...body } = body);
    return { status: res.status, headers: res.headers, body, requestId, text };
  };
}
