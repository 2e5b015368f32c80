/** Topic builders: a locker publishes and subscribes only under `lockers/{lockerId}/`. */
export const TOPIC_ROOT = 'lockers';

export type TopicName =
  | 'connection'
  | 'cells'
  | 'events'
  | 'acks'
  | 'sync'
  | 'commands'
  | 'responses'
  | 'health'
  | 'selftest';

export function lockerTopic(lockerId: string, name: TopicName): string {
  if (!lockerId || /[+#/]/.test(lockerId))
    throw new Error(`locker id ${JSON.stringify(lockerId)} cannot be used in a topic`);
  return `${TOPIC_ROOT}/${lockerId}/${name}`;
}

export const topics = {
  connection: (id: string) => lockerTopic(id, 'connection'),
  cells: (id: string) => lockerTopic(id, 'cells'),
  events: (id: string) => lockerTopic(id, 'events'),
  acks: (id: string) => lockerTopic(id, 'acks'),
  sync: (id: string) => lockerTopic(id, 'sync'),
  commands: (id: string) => lockerTopic(id, 'commands'),
  responses: (id: string) => lockerTopic(id, 'responses'),
  health: (id: string) => lockerTopic(id, 'health'),
  selftest: (id: string) => lockerTopic(id, 'selftest'),
};

/** Subscription pattern for the cloud side, with the locker id as the single-level wildcard. */
export function allLockersTopic(name: TopicName): string {
  return `${TOPIC_ROOT}/+/${name}`;
}

/** Inverse of lockerTopic, for the cloud's wildcard subscriptions. */
export function parseLockerTopic(topic: string): { lockerId: string; name: TopicName } | undefined {
  const m = /^lockers\/([^/+#]+)\/(connection|cells|events|acks|sync|commands|responses|health|selftest)$/.exec(topic);
  return m ? { lockerId: m[1], name: m[2] as TopicName } : undefined;
}
