/**
 * The cloud's side of the locker link, started with the cloud: the embedded broker (unless
 * MQTT_URL names an external one), the cloud's link to it (direct-link.ts inside the embedded
 * broker, an MQTT client to an external one), inbound messages and the
 * publisher. Per process, by design: the broker connection, the per-locker order of inbound
 * handling and the verified-password cache. Everything else (versions, changes, events,
 * commands, link state) is in the database, so several processes can share it.
 */
import crypto from 'node:crypto';
import mqtt from 'mqtt';
import { allLockersTopic, type TopicName } from '../../shared/mqtt/index.ts';
import { MqttLink, type MqttConnect } from '../../shared/mqtt/link.ts';
import { redactUrl } from '../../shared/urls.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import type { UnitOfWork } from '../services/unit-of-work.ts';
import { CLOUD_USERNAME, startEmbeddedBroker, type EmbeddedBroker } from './broker.ts';
import { connectionCapWithin, openFileLimit, type BrokerLimits } from './broker-limits.ts';
import { AgentCredentials } from './credentials.ts';
import { InboundMessages } from './inbound.ts';
import { SyncPublisher } from './publisher.ts';
import { DirectLink } from './direct-link.ts';
import type { PublishLeases } from './publish-claim.ts';
import type { BrokerRefusal } from './refusal-log.ts';
import type { IngestOutcome } from './ingest.ts';

const INBOUND: TopicName[] = ['connection', 'cells', 'events', 'responses', 'health', 'selftest'];
const COMMAND_RESEND_MS = 10_000;
const FIRST_CONNECT_TIMEOUT_MS = 10_000;

export interface SyncHandle {
  /** the broker agents connect to (password-free) */
  mqttUrl: string;
  /** the embedded broker, when there is one (tests restart it) */
  broker?: {
    port: number;
    restart(whileDown?: () => Promise<void>): Promise<void>;
    connectedClients(): number;
    openConnections(): number;
    /** the broker's refusal counters since it started (docs/security.md, "Broker limits") */
    refusals(): Record<BrokerRefusal, number>;
  };
  publisher: SyncPublisher;
  inbound: InboundMessages;
  /** whether the cloud's link to the broker is up now (readiness) */
  connected(): boolean;
  close(): Promise<void>;
}

export interface SyncDeps {
  db: Db;
  /** events from lockers are applied in it, so what they cause is published and sent after commit */
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
  connect?: MqttConnect;
  /** attempts before an event that keeps failing is set aside (LOCKER_EVENT_MAX_ATTEMPTS) */
  eventMaxAttempts?: number;
  /** metrics: what each locker event came to, and each delta published */
  onEvent?: (outcome: IngestOutcome) => void;
  onPublished?: (postomatId: string) => void;
  /** the leases the process's unit of work takes (publish-claim.ts); the publisher's own otherwise */
  leases?: PublishLeases;
}

/** What the locker link is told at start (the wiring builds it from the configuration: config.ts syncSettingsOf). */
export interface SyncSettings {
  /** an external broker; absent: the embedded one is started */
  mqttUrl?: string;
  /** the cloud's login at the external broker */
  mqttUsername?: string;
  mqttPassword?: string;
  /** where the embedded broker listens */
  mqttPort: number;
  host: string;
  /** the embedded broker's limits */
  brokerLimits: BrokerLimits;
  /** the publisher's safety-net poll (SYNC_POLL_MS) */
  pollMs: number;
}

export async function startSync(settings: SyncSettings, deps: SyncDeps): Promise<SyncHandle> {
  const logger = deps.logger.child({ component: 'sync' });
  let embedded: EmbeddedBroker | undefined;
  const limits = { ...settings.brokerLimits };
  const brokerOptions = {
    port: settings.mqttPort,
    host: settings.host,
    credentials: new AgentCredentials(deps.db),
    logger,
    clock: deps.clock,
    limits,
  };
  if (!settings.mqttUrl) {
    const descriptors = openFileLimit();
    const cap = connectionCapWithin(limits.maxConnections, descriptors);
    if (cap < limits.maxConnections) {
      logger.warn(
        'MQTT_MAX_CONNECTIONS lowered to what the open-file limit leaves: raise LimitNOFILE (docs/security.md)',
        { configured: limits.maxConnections, openFileLimit: descriptors, cap },
      );
      limits.maxConnections = cap;
    }
    embedded = await startEmbeddedBroker(brokerOptions);
  }
  const url = settings.mqttUrl ?? embedded!.url;
  const auth = embedded
    ? { username: CLOUD_USERNAME, password: embedded.cloudSecret }
    : { username: settings.mqttUsername, password: settings.mqttPassword };

  // The embedded broker is reached from inside (direct-link.ts); an external one with a client.
  const direct = embedded ? new DirectLink(embedded.serverSide, logger) : undefined;
  const link = direct ?? clientLink();
  function clientLink() {
    return new MqttLink(
      {
        url,
        backoff: { minMs: 200, maxMs: 5_000 },
        clientOptions: () => ({
          clientId: `cloud-${crypto.randomBytes(6).toString('hex')}`,
          clean: true,
          keepalive: 30,
          connectTimeout: 10_000,
          ...auth,
        }),
      },
      {
        connect: deps.connect ?? mqtt.connect,
        timers: { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
        log: logger,
      },
    );
  }
  const publish = (topic: string, body: unknown) => link.publish(topic, body, { qos: 1 });
  const publisher = new SyncPublisher(
    {
      db: deps.db,
      clock: deps.clock,
      logger,
      publish,
      connected: () => link.connected,
      onPublished: deps.onPublished,
      leases: deps.leases,
    },
    { pollMs: settings.pollMs, commandResendMs: COMMAND_RESEND_MS },
  );
  const inbound = new InboundMessages({
    db: deps.db,
    uow: deps.uow,
    clock: deps.clock,
    logger,
    publish,
    publisher,
    eventMaxAttempts: deps.eventMaxAttempts,
    onEvent: deps.onEvent,
  });
  link.on('message', (topic, payload) => inbound.handle(topic, payload));

  const subscribed = new Promise<void>((resolve, reject) => {
    link.on('connect', () => {
      link.subscribe(INBOUND.map(allLockersTopic)).then(
        () => {
          logger.info('connected to the MQTT broker', { broker: redactUrl(url) });
          // What could not be published while the link was down goes out now, not at the next poll.
          publisher.soon();
          resolve();
        },
        (err) => {
          logger.error('MQTT subscriptions failed', { err });
          reject(err);
        },
      );
    });
  });
  link.start();
  const stopAll = async () => {
    await publisher.stop();
    await link.stop();
    await embedded?.close();
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      subscribed,
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `cannot connect to the MQTT broker at ${redactUrl(url)} within ${FIRST_CONNECT_TIMEOUT_MS / 1000} s`,
              ),
            ),
          FIRST_CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (err) {
    await stopAll();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  publisher.start();

  return {
    mqttUrl: redactUrl(url),
    broker: embedded && {
      port: embedded.port,
      connectedClients: () => embedded!.connectedClients(),
      openConnections: () => embedded!.openConnections(),
      refusals: () => embedded!.refusals(),
      async restart(whileDown) {
        direct?.detach();
        await embedded!.close();
        await whileDown?.();
        embedded = await startEmbeddedBroker({
          ...brokerOptions,
          port: embedded!.port,
          cloudSecret: embedded!.cloudSecret,
        });
        direct?.attach(embedded.serverSide);
      },
    },
    publisher,
    inbound,
    connected: () => link.connected,
    async close() {
      await stopAll();
      await inbound.idle();
    },
  };
}
