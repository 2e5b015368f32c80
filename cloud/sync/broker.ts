/**
 * The embedded MQTT broker (aedes 1.x), used when no external broker is configured. Its hooks
 * are the whole security model of the locker link: every locker authenticates with its own
 * credentials, and may touch only its own topics in its own direction (acl.ts). The cloud's
 * own client authenticates with a secret made fresh by this process and never written down.
 *
 * In front of aedes, the limits a hostile sender meets before and after login (docs/security.md,
 * "Broker limits"): caps on sockets in all and per address, a deadline for the CONNECT, sizes
 * of what a client may send (packet-guard.ts), and a backoff for addresses that fail to log in.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type Client } from 'aedes';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import { addressKey } from '../http/client-address.ts';
import { mayPublish, maySubscribe, type BrokerIdentity } from './acl.ts';
import type { BrokerLimits } from './broker-limits.ts';
import { ConnectionCaps } from './connection-caps.ts';
import type { AgentCredentials } from './credentials.ts';
import { LoginBackoff } from './login-backoff.ts';
import { guardOf, guardSocket } from './packet-guard.ts';
import { forgetConnect, leanParser } from './lean-clients.ts';
import { withFifoQueues } from './fifo-queue.ts';
import { withRetainedIndex, type RetainedStore } from './retained-index.ts';
import { RefusalLog, type BrokerRefusal } from './refusal-log.ts';
import { listenOn } from '../../shared/listen.ts';
import type { ServerSide } from './direct-link.ts';

/** The username of the cloud's own client: `$` cannot start a locker id. */
export const CLOUD_USERNAME = '$cloud';

export interface EmbeddedBroker {
  port: number;
  /** where the cloud's own client connects */
  url: string;
  /** the password of CLOUD_USERNAME, for this process only */
  cloudSecret: string;
  connectedClients(): number;
  /** sockets open now, logged in or not */
  openConnections(): number;
  /** refusals since this broker started, by reason */
  refusals(): Record<BrokerRefusal, number>;
  /** the broker's own publish and subscriptions, for the cloud's side without a client (direct-link.ts) */
  serverSide: ServerSide;
  close(): Promise<void>;
}

export interface BrokerOptions {
  port: number;
  host: string;
  credentials: AgentCredentials;
  logger: Logger;
  clock: Clock;
  limits: BrokerLimits;
  /** how often refusals are summed up in one log line (60 s) */
  refusalLogIntervalMs?: number;
  /** keep the cloud secret of a previous start (a broker restarted inside the same process) */
  cloudSecret?: string;
}

/** aedes's AuthErrorCode, which its types declare as a const enum (not importable at runtime). */
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;

/** What a socket refused at a cap reads before it is closed: CONNACK "server unavailable" (MQTT 3.1.1). */
const CONNACK_SERVER_UNAVAILABLE = Buffer.from([0x20, 0x02, 0x00, SERVER_UNAVAILABLE]);

function authError(message: string, returnCode: number) {
  return Object.assign(new Error(message), { returnCode });
}

/** Strings from the wire go into log lines shortened. */
const short = (s: string | undefined) => (s === undefined ? null : s.length > 80 ? `${s.slice(0, 80)}…` : s);

export async function startEmbeddedBroker(options: BrokerOptions): Promise<EmbeddedBroker> {
  const { logger, credentials, limits } = options;
  const cloudSecret = options.cloudSecret ?? crypto.randomBytes(24).toString('base64url');
  const identities = new WeakMap<Client, BrokerIdentity>();
  const isCloudSecret = (password: Buffer | undefined) =>
    password !== undefined &&
    password.length === cloudSecret.length &&
    crypto.timingSafeEqual(password, Buffer.from(cloudSecret));
  const refusals = new RefusalLog(logger, options.refusalLogIntervalMs);
  const caps = new ConnectionCaps(limits.maxConnections, limits.maxConnectionsPerAddress);
  const logins = new LoginBackoff(limits.loginFailureMax, limits.loginFailureWindowMs, options.clock);
  // Said once: an aedes or mqtt-packet whose fields changed still works, with more memory per client.
  let leanWarned = false;
  const leanWarning = (what: string) => {
    if (leanWarned) return;
    leanWarned = true;
    logger.warn(`broker: ${what} (lean-clients.ts does not fit this aedes/mqtt-packet)`);
  };
  const addressOf = (client: Client | null) => guardOf(client?.conn)?.address ?? 'unknown';

  const broker = await Aedes.createBroker({
    // Client ids are `locker-<cuid2>` (32 characters): above MQTT 3.1.1's guaranteed 23.
    maxClientsIdLength: 64,
    // The guard closes a socket without a CONNECT first; this is the backstop.
    connectTimeout: limits.connectTimeoutMs + 1_000,
    authenticate(client, username, password, done) {
      const conn = guardOf(client.conn);
      const address = conn?.address ?? 'unknown';
      const admit = (identity: BrokerIdentity, maxPacket: number) => {
        conn?.admit(maxPacket);
        identities.set(client, identity);
        if (!forgetConnect(client)) leanWarning('the parser keeps the CONNECT packet (password included)');
        done(null, true);
      };
      // The cloud's own client costs no lookup, and is never kept out by others' failures.
      if (username === CLOUD_USERNAME && isCloudSecret(password)) return admit({ kind: 'cloud' }, Infinity);
      if (logins.blocked(address)) {
        refusals.note('login-backoff', address);
        return done(authError('too many failed logins from this address', SERVER_UNAVAILABLE), null);
      }
      const attempt = logins.attempt(address);
      const fail = (why: string, returnCode: number) => {
        refusals.note('bad-login', address, { why, username: short(username) });
        done(authError(why, returnCode), null);
      };
      if (username === CLOUD_USERNAME) return fail('bad cloud credentials', BAD_USERNAME_OR_PASSWORD);
      // A locker connecting under another locker's client id would take over (disconnect) its session.
      if (client.id !== `locker-${username}`) return fail('client id must be locker-<username>', IDENTIFIER_REJECTED);
      credentials.verify(username, password).then(
        (ok) => {
          if (!ok) return fail('bad username or password', BAD_USERNAME_OR_PASSWORD);
          logins.succeeded(attempt);
          admit({ kind: 'locker', lockerId: username! }, limits.maxPacketBytes);
        },
        (err) => {
          // Not the client's failure: the database did not answer.
          logins.succeeded(attempt);
          logger.error('mqtt authentication failed', { err });
          done(authError('authentication unavailable', SERVER_UNAVAILABLE), null);
        },
      );
    },
    authorizePublish(client, packet, done) {
      const who = client ? identities.get(client) : { kind: 'cloud' as const };
      if (who && mayPublish(who, packet.topic)) return done(null);
      refusals.note('publish-denied', addressOf(client), {
        lockerId: who?.kind === 'locker' ? who.lockerId : null,
        topic: short(packet.topic),
      });
      // MQTT 3.1.1 has no negative PUBACK: the offending connection is closed.
      done(new Error(`not authorized to publish on ${short(packet.topic)}`));
    },
    authorizeSubscribe(client, sub, done) {
      const who = identities.get(client);
      if (who && maySubscribe(who, sub.topic)) return done(null, sub);
      refusals.note('subscribe-denied', addressOf(client), {
        lockerId: who?.kind === 'locker' ? who.lockerId : null,
        topic: short(sub.topic),
      });
      done(null, null); // SUBACK 0x80 for this filter
    },
  });
  // Before any client: a locker's SUBSCRIBE to its own topics finds their retained messages by topic.
  const persistence = withRetainedIndex((broker as unknown as { persistence: RetainedStore }).persistence);
  // And a backlog of messages costs each one the same, not the backlog's length (fifo-queue.ts).
  if (!withFifoQueues((broker as unknown as { mq: unknown }).mq))
    logger.warn(
      'broker: the message queue is not the one expected (mqemitter 7); a backlog will cost more per message',
    );

  const noteRefusal = (reason: BrokerRefusal, address: string, detail: Record<string, unknown>) =>
    refusals.note(reason, address, detail);
  // Sockets not logged in yet are no aedes client, which its close() would end: closed here.
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined); // a reset by the peer is no fault of ours
    const address = addressKey(socket.remoteAddress);
    const refused = caps.take(address);
    if (refused) {
      refusals.note(refused, address, { open: caps.open });
      // Said in MQTT before the close, for a client that reads it; the descriptor goes at once.
      socket.end(CONNACK_SERVER_UNAVAILABLE, () => socket.destroy());
      return;
    }
    sockets.add(socket);
    // Small MQTT packets go out at once: with Nagle's algorithm a packet that follows another one
    // waits for its ACK, which Linux delays up to 40 ms (aedes leaves the socket as it came).
    socket.setNoDelay(true);
    socket.once('close', () => {
      caps.release(address);
      sockets.delete(socket);
    });
    guardSocket(socket, {
      address,
      preLoginBytes: limits.maxConnectBytes,
      connectTimeoutMs: limits.connectTimeoutMs,
      onRefused: noteRefusal,
    });
    if (!leanParser(broker.handle(socket))) leanWarning("the parser's buffer is a whole stream per client");
  });
  try {
    await listenOn(
      server,
      options.port,
      options.host,
      `MQTT_PORT ${options.port} is already in use: choose another with MQTT_PORT=…, or use an external broker with MQTT_URL=mqtt://…`,
    );
  } catch (err) {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    port,
    url: `mqtt://${host}:${port}`,
    cloudSecret,
    connectedClients: () => broker.connectedClients,
    openConnections: () => caps.open,
    refusals: () => ({ ...refusals.totals }),
    serverSide: {
      publish: (packet, done) => broker.publish(packet as Parameters<typeof broker.publish>[0], done),
      subscribe: (topic, deliver, done) => broker.subscribe(topic, deliver as never, done),
      unsubscribe: (topic, deliver, done) => broker.unsubscribe(topic, deliver as never, done),
      retained: (patterns) => persistence.createRetainedStreamCombi(patterns),
    },
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      refusals.close();
    },
  };
}
