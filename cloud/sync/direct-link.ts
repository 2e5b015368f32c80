/**
 * The cloud's side of its embedded broker, without an MQTT client: what the cloud publishes goes
 * into aedes as the broker's own message, and what it subscribes to is a subscription inside the
 * broker (aedes' server-side `publish` and `subscribe`). The locker's side is unchanged: the same
 * sockets, packets, QoS and ACL. Through an in-process MQTT client every message to or from a
 * locker was also encoded and parsed once more on the cloud's side of the broker, with the
 * client's own queues and acknowledgements: about a tenth of a busy cloud's CPU (bench:peak).
 * An external broker (MQTT_URL) is still reached with a client (shared/mqtt/link.ts).
 *
 * The link follows the broker: `detach` before the broker closes (a restart inside the process),
 * `attach` to the one that replaces it; like a client's reconnection, each attach says `connect`,
 * whose listener subscribes again.
 */
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { MqttLinkEvents } from '../../shared/mqtt/link.ts';

/** A message as aedes hands it to a server-side subscription. */
interface BrokerPacket {
  topic: string;
  payload: Buffer | string;
}

/** The part of aedes a server-side link needs. */
export interface ServerSide {
  publish(
    packet: { cmd: 'publish'; topic: string; payload: Buffer; qos: 0 | 1; retain: boolean; dup: boolean },
    done: (err?: Error | null) => void,
  ): void;
  subscribe(topic: string, deliver: (packet: BrokerPacket, cb: () => void) => void, done: () => void): void;
  unsubscribe(topic: string, deliver: (packet: BrokerPacket, cb: () => void) => void, done: () => void): void;
  /** the retained messages matching `patterns`, as a SUBSCRIBE would receive them */
  retained(patterns: string[]): Readable;
}

export interface Log {
  warn(msg: string): void;
}

const asBuffer = (payload: Buffer | string) => (typeof payload === 'string' ? Buffer.from(payload) : payload);

export class DirectLink extends EventEmitter<MqttLinkEvents> {
  private broker: ServerSide | undefined;
  private stopped = false;
  private readonly subscribed = new Set<string>();
  private readonly deliver = (packet: BrokerPacket, cb: () => void) => {
    // Handed on at once: the cloud orders and bounds its own work (inbound.ts).
    cb();
    this.emit('message', packet.topic, asBuffer(packet.payload));
  };

  constructor(
    broker: ServerSide,
    private readonly log: Log,
  ) {
    super();
    this.broker = broker;
  }

  get connected(): boolean {
    return this.broker !== undefined && !this.stopped;
  }

  start(): void {
    if (this.connected) queueMicrotask(() => this.emit('connect'));
  }

  /** The broker is about to close: nothing is published or received until `attach`. */
  detach(): void {
    if (!this.broker) return;
    this.broker = undefined;
    this.subscribed.clear();
    this.emit('close');
  }

  attach(broker: ServerSide): void {
    this.broker = broker;
    if (!this.stopped) queueMicrotask(() => this.emit('connect'));
  }

  /** Publishes a JSON message; false when the broker is gone or did not take it. */
  publish(topic: string, body: unknown, options: { qos?: 0 | 1 } = { qos: 1 }): Promise<boolean> {
    const broker = this.broker;
    if (!broker || this.stopped) return Promise.resolve(false);
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve) =>
      broker.publish({ cmd: 'publish', topic, payload, qos: options.qos ?? 1, retain: false, dup: false }, (err) => {
        if (err) this.log.warn(`publish on ${topic} failed: ${err.message}`);
        resolve(!err);
      }),
    );
  }

  /**
   * Subscriptions inside the broker; then the retained messages they match, as a client's
   * SUBSCRIBE gets them (a locker that logged in before the cloud subscribed is not missed).
   */
  async subscribe(topics: string[]): Promise<void> {
    const broker = this.broker;
    if (!broker || this.stopped) throw new Error('not connected');
    const fresh = topics.filter((t) => !this.subscribed.has(t));
    for (const topic of fresh) {
      await new Promise<void>((resolve) => broker.subscribe(topic, this.deliver, resolve));
      this.subscribed.add(topic);
    }
    if (!fresh.length) return;
    for await (const packet of broker.retained(fresh) as AsyncIterable<BrokerPacket>) {
      if (this.broker !== broker) return;
      this.emit('message', packet.topic, asBuffer(packet.payload));
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const broker = this.broker;
    if (!broker) return;
    for (const topic of this.subscribed)
      await new Promise<void>((resolve) => broker.unsubscribe(topic, this.deliver, resolve));
    this.subscribed.clear();
  }
}
