import mqtt from 'mqtt';
import type { AgentConfig } from '../config.ts';
import { redactUrl } from '../../shared/urls.ts';

/**
 * Publishes one retained message as the locker and disconnects: for tools run while the agent
 * service is stopped (its client id is the locker's own, which the broker requires).
 */
export async function publishOnce(
  cloud: NonNullable<AgentConfig['cloud']>,
  lockerId: string,
  topic: string,
  body: unknown,
  timeoutMs = 15_000,
): Promise<void> {
  const client = await mqtt
    .connectAsync(cloud.mqttUrl, {
      clientId: `locker-${lockerId}`,
      username: cloud.username,
      password: cloud.password,
      clean: true,
      connectTimeout: timeoutMs,
      reconnectPeriod: 0,
    })
    .catch((err: Error) => {
      throw new Error(`cannot reach the broker at ${redactUrl(cloud.mqttUrl)}: ${err.message}`);
    });
  try {
    await client.publishAsync(topic, JSON.stringify(body), { qos: 1, retain: true });
  } finally {
    await client.endAsync();
  }
}
