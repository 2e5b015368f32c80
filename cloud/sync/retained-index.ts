/**
 * aedes' memory persistence answers a SUBSCRIBE by testing every retained message against the
 * subscription's pattern. Each locker keeps three retained messages (connection, cells, health)
 * and subscribes to its own exact topics, so with 10,000 lockers every agent's SUBSCRIBE walked
 * ~30,000 messages, and the lockers' reconnection after a cloud restart slowed as it went (from
 * 59 s to 136 s per 2,500 agents, bench:peak). A pattern without wildcards names one topic: it
 * is looked up in an index of the retained messages by topic; wildcard patterns (the cloud's own
 * `lockers/+/…`) go through the persistence as before.
 */
import { Readable } from 'node:stream';

interface RetainedPacket {
  topic: string;
  payload: Buffer | string;
}

/** The part of aedes' persistence (aedes-persistence's CallBackPersistence) the index wraps. */
export interface RetainedStore {
  storeRetained(packet: RetainedPacket, cb?: (err: Error | null) => void): unknown;
  createRetainedStreamCombi(patterns: string[]): Readable;
}

const exact = (pattern: string) => !pattern.includes('+') && !pattern.includes('#');

/** Adds a topic index to `persistence`'s retained messages (in place; returned for convenience). */
export function withRetainedIndex<P extends RetainedStore>(persistence: P): P {
  const byTopic = new Map<string, RetainedPacket>();
  const store = persistence.storeRetained.bind(persistence);
  const combi = persistence.createRetainedStreamCombi.bind(persistence);
  persistence.storeRetained = (packet, cb) => {
    // As the persistence does: an empty payload clears the topic's retained message.
    if (packet.payload.length === 0) byTopic.delete(packet.topic);
    else byTopic.set(packet.topic, { ...packet });
    return store(packet, cb);
  };
  persistence.createRetainedStreamCombi = (patterns) => {
    if (!patterns.every(exact)) return combi(patterns);
    const found = [...new Set(patterns)]
      .map((topic) => byTopic.get(topic))
      .filter((p): p is RetainedPacket => p !== undefined);
    return Readable.from(found);
  };
  return persistence;
}
