/**
 * Who may publish and subscribe where. A locker's agent (username = its locker id) only under
 * `lockers/{its id}/`, and only in its direction: it publishes connection, cells, events,
 * responses, health and selftest, and subscribes to acks, sync and commands, by exact topic (no wildcards). The
 * cloud's own client may do anything. docs/mosquitto/acl holds the same rules for Mosquitto (docs/locker-sync.md).
 */
import { topics, type TopicName } from '../../shared/mqtt/index.ts';

export type BrokerIdentity = { kind: 'cloud' } | { kind: 'locker'; lockerId: string };

export const AGENT_PUBLISHES: readonly TopicName[] = [
  'connection',
  'cells',
  'events',
  'responses',
  'health',
  'selftest',
];
export const AGENT_SUBSCRIBES: readonly TopicName[] = ['acks', 'sync', 'commands'];

function ownTopic(lockerId: string, topic: string, names: readonly TopicName[]): boolean {
  return names.some((n) => topics[n](lockerId) === topic);
}

export function mayPublish(who: BrokerIdentity, topic: string): boolean {
  return who.kind === 'cloud' || ownTopic(who.lockerId, topic, AGENT_PUBLISHES);
}

export function maySubscribe(who: BrokerIdentity, filter: string): boolean {
  return who.kind === 'cloud' || ownTopic(who.lockerId, filter, AGENT_SUBSCRIBES);
}

/** Locker ids become topic levels: nothing that could widen a topic or a filter. */
export function isLockerUsername(username: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(username);
}
