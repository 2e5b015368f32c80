import mqtt from 'mqtt';
import type { z } from 'zod';
import {
  AckMessage,
  CommandMessage,
  CONTRACT_VERSION,
  SyncMessageWithCells,
  topics,
  type ConnectionMessage,
  type LockerEvent,
  type TopicName,
} from '../shared/mqtt/index.ts';
import { decodeMessage, MqttLink, type MqttConnect } from '../shared/mqtt/link.ts';
import { isoNow, systemClock, type Clock } from './clock.ts';
import {
  DEFAULT_HEALTH_HEARTBEAT_MS,
  DEFAULT_HEALTH_INTERVAL_MS,
  DEFAULT_KEEPALIVE_SECONDS,
  type AgentConfig,
} from './config.ts';
import { HealthSchedule } from './health.ts';
import type { Log } from './display.ts';
import type { AgentSyncPort } from './sync-port.ts';

export interface AgentSyncOptions {
  lockerId: string;
  mqttUrl: string;
  username: string;
  password: string;
  agentVersion: string;
  /** Unacknowledged events are published again after this long. */
  retryMs?: number;
  backoff?: { minMs: number; maxMs: number };
  /** The health report is looked at this often and published if it changed (and at once when a board falls silent). */
  healthMs?: number;
  /** An unchanged health report is published again after this long. */
  healthHeartbeatMs?: number;
  /** MQTT keepalive (config cloud.keepaliveSeconds). */
  keepaliveSeconds?: number;
}

const INBOUND: TopicName[] = ['acks', 'sync', 'commands'];

/**
 * The agent's side of the MQTT contract. On every (re)connect: subscribe to its own acks, sync
 * and commands, announce itself (retained, with its sync version, so the cloud sends what
 * changed), publish its cells and its whole outbox. Events stay in the outbox until acked and
 * are published again every `retryMs`. Every incoming message is validated; what does not
 * parse is logged and dropped.
 */
export class AgentSync {
  private readonly link: MqttLink;
  private readonly lastSent = new Map<string, number>();
  private retryTimer: unknown;
  private healthTimer: unknown;
  private connectionAt = '';
  private readonly onEvent = (e: LockerEvent) => void this.sendEvent(e);
  private readonly onCells = () => void this.sendCells();
  private readonly onHealth = () => void this.sendHealth(true);
  private readonly health: HealthSchedule;

  constructor(
    private readonly port: AgentSyncPort,
    private readonly options: AgentSyncOptions,
    private readonly deps: { connect: MqttConnect; clock: Clock; log: Log },
  ) {
    this.health = new HealthSchedule(options.healthHeartbeatMs ?? DEFAULT_HEALTH_HEARTBEAT_MS);
    this.link = new MqttLink(
      {
        url: options.mqttUrl,
        backoff: options.backoff,
        clientOptions: () => {
          this.connectionAt = isoNow(deps.clock);
          return {
            clientId: `locker-${options.lockerId}`,
            username: options.username,
            password: options.password,
            clean: true,
            keepalive: options.keepaliveSeconds ?? DEFAULT_KEEPALIVE_SECONDS,
            connectTimeout: 10_000,
            will: {
              topic: this.topic('connection'),
              payload: Buffer.from(JSON.stringify(this.connection(false))),
              qos: 1,
              retain: true,
            },
          };
        },
      },
      { connect: deps.connect, timers: deps.clock, log: deps.log },
    );
    this.link.on('connect', () => void this.onConnect());
    this.link.on('close', () => {
      this.deps.clock.clearTimeout(this.retryTimer);
      this.deps.clock.clearTimeout(this.healthTimer);
    });
    this.link.on('message', (topic, payload) => void this.onMessage(topic, payload));
  }

  get connected(): boolean {
    return this.link.connected;
  }

  start(): void {
    this.port.on('event', this.onEvent);
    this.port.on('cells', this.onCells);
    this.port.on('health', this.onHealth);
    this.link.start();
  }

  /** Says goodbye (retained "offline") rather than leaving it to the Last Will. */
  async stop(): Promise<void> {
    this.deps.clock.clearTimeout(this.retryTimer);
    this.deps.clock.clearTimeout(this.healthTimer);
    await this.link.stop(() =>
      this.link.publish(this.topic('connection'), this.connection(false, isoNow(this.deps.clock)), {
        qos: 1,
        retain: true,
      }),
    );
    this.port.off('event', this.onEvent);
    this.port.off('cells', this.onCells);
    this.port.off('health', this.onHealth);
  }

  /** The simulator's "cut the network": the connection drops as a cable pull would. */
  async setNetwork(online: boolean): Promise<void> {
    if (online) this.link.resume();
    else await this.link.pause();
  }

  private topic(name: TopicName): string {
    return topics[name](this.options.lockerId);
  }

  /**
   * `at` is the time of this connection, in its announcements and in its Last Will alike: the
   * cloud ignores a message older than the one it holds, so a Last Will of an old connection
   * delivered after the agent came back cannot mark it offline.
   */
  private connection(online: boolean, at = this.connectionAt): ConnectionMessage {
    return {
      v: CONTRACT_VERSION,
      online,
      agentVersion: this.options.agentVersion,
      syncVersion: this.port.announcedVersion?.() ?? this.port.syncVersion(),
      at,
    };
  }

  private async onConnect(): Promise<void> {
    try {
      // Subscribed before announcing: the cloud answers the announcement at once.
      await this.link.subscribe(INBOUND.map((n) => this.topic(n)));
    } catch (err) {
      this.deps.log.error(`cloud link: ${(err as Error).message}`);
      return;
    }
    this.deps.log.info(`connected to the cloud (sync version ${this.port.syncVersion()})`);
    await this.announce();
    await this.sendCells();
    await this.sendHealth(true);
    this.lastSent.clear();
    await this.flushOutbox(0);
    this.scheduleRetry();
  }

  /** Retained; also what makes the cloud send the orders changed since our version. */
  private announce(): Promise<boolean> {
    return this.link.publish(this.topic('connection'), this.connection(true), { qos: 1, retain: true });
  }

  private sendCells(): Promise<boolean> {
    return this.link.publish(this.topic('cells'), this.port.cellsMessage(), { qos: 1, retain: true });
  }

  /**
   * Retained, so the cloud's last word on this locker's health is always the newest. `now`: on
   * connecting and when a board falls silent or answers again; otherwise (the periodic look)
   * only when the report changed or the heartbeat is due (HealthSchedule).
   */
  private async sendHealth(now = false): Promise<void> {
    if (!this.port.healthMessage) return;
    this.deps.clock.clearTimeout(this.healthTimer);
    if (!this.link.connected) return;
    const msg = this.port.healthMessage();
    const at = this.deps.clock.now();
    if (now || this.health.due(msg, at)) {
      if (await this.link.publish(this.topic('health'), msg, { qos: 1, retain: true })) this.health.sent(msg, at);
    }
    this.healthTimer = this.deps.clock.setTimeout(
      () => void this.sendHealth(),
      this.options.healthMs ?? DEFAULT_HEALTH_INTERVAL_MS,
    );
  }

  private async sendEvent(event: LockerEvent): Promise<void> {
    this.lastSent.set(event.eventId, this.deps.clock.now());
    await this.link.publish(this.topic('events'), event, { qos: 1 });
  }

  /** Publishes (again) every outbox event last sent at least `olderThanMs` ago, oldest first. */
  private async flushOutbox(olderThanMs: number): Promise<void> {
    const now = this.deps.clock.now();
    for (const event of this.port.pendingEvents()) {
      if (!this.link.connected) return;
      const last = this.lastSent.get(event.eventId);
      if (last !== undefined && now - last < olderThanMs) continue;
      await this.sendEvent(event);
    }
  }

  private scheduleRetry(): void {
    const every = this.options.retryMs ?? 15_000;
    this.deps.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.deps.clock.setTimeout(() => {
      if (!this.link.connected) return;
      void this.flushOutbox(every).finally(() => this.scheduleRetry());
    }, every);
  }

  private async onMessage(topic: string, payload: Buffer): Promise<void> {
    const name = INBOUND.find((n) => this.topic(n) === topic);
    if (name === 'acks') {
      const msg = this.decode(name, AckMessage, payload);
      if (msg && this.port.ack(msg.eventId)) this.lastSent.delete(msg.eventId);
    } else if (name === 'sync') {
      const msg = this.decode(name, SyncMessageWithCells, payload);
      if (!msg) return;
      const result = this.port.applySync(msg);
      if (result.gap) {
        this.deps.log.warn(
          `sync delta after version ${msg.since} but this store holds ${result.version}: asking again`,
        );
        await this.announce();
      }
    } else if (name === 'commands') {
      const msg = this.decode(name, CommandMessage, payload);
      if (!msg) return;
      try {
        await this.link.publish(this.topic('responses'), await this.port.handleCommand(msg), { qos: 1 });
      } catch (err) {
        this.deps.log.error(`command ${msg.commandId}: ${(err as Error).message}`);
      }
    }
  }

  private decode<T>(name: TopicName, schema: z.ZodType<T>, payload: Buffer): T | undefined {
    const result = decodeMessage(schema, payload);
    if (result.ok) return result.value;
    this.deps.log.warn(`dropped a ${name} message that does not parse: ${result.error}`);
    return undefined;
  }
}

/** Starts the cloud link of an agent whose config has a `cloud` section (else undefined). */
export function startAgentSync(
  port: AgentSyncPort,
  config: AgentConfig,
  log: Log,
  agentVersion: string,
  clock: Clock = systemClock,
): AgentSync | undefined {
  if (!config.cloud) return undefined;
  const {
    mqttUrl,
    username,
    password,
    eventRetryMs,
    reconnectMaxMs,
    healthIntervalMs,
    healthHeartbeatMs,
    keepaliveSeconds,
  } = config.cloud;
  const options = {
    lockerId: config.lockerId,
    mqttUrl,
    username,
    password,
    agentVersion,
    retryMs: eventRetryMs,
    backoff: { minMs: 500, maxMs: reconnectMaxMs },
    healthMs: healthIntervalMs,
    healthHeartbeatMs,
    keepaliveSeconds,
  };
  const sync = new AgentSync(port, options, { connect: mqtt.connect, clock, log });
  sync.start();
  return sync;
}
