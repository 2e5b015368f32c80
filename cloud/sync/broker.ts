/**
 * The embedded MQTT broker (aedes 1.x), used when no external broker is configured. Its hooks
 * are the whole security model of the locker link: every locker authenticates with its own
 * credentials, and may touch only its own topics in its own direction (acl.ts). The cloud's
 * own client authenticates with a secret made fresh by this process and never written down.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type Client } from 'aedes';
import type { Logger } from '../logger.ts';
import { mayPublish, maySubscribe, type BrokerIdentity } from './acl.ts';
import type { AgentCredentials } from './credentials.ts';
import { listenOn } from '../../shared/listen.ts';

/** The username of the cloud's own client: `$` cannot start a locker id. */
export const CLOUD_USERNAME = '$cloud';

export interface EmbeddedBroker {
  port: number;
  /** where the cloud's own client connects */
  url: string;
  /** the password of CLOUD_USERNAME, for this process only */
  cloudSecret: string;
  connectedClients(): number;
  close(): Promise<void>;
}

export interface BrokerOptions {
  port: number;
  host: string;
  credentials: AgentCredentials;
  logger: Logger;
  /** keep the cloud secret of a previous start (a broker restarted inside the same process) */
  cloudSecret?: string;
}

/** aedes's AuthErrorCode, which its types declare as a const enum (not importable at runtime). */
const BAD_USERNAME_OR_PASSWORD = 4;
const IDENTIFIER_REJECTED = 2;

function authError(message: string, returnCode: number) {
  return Object.assign(new Error(message), { returnCode });
}

export async function startEmbeddedBroker(options: BrokerOptions): Promise<EmbeddedBroker> {
  const { logger, credentials } = options;
  const cloudSecret = options.cloudSecret ?? crypto.randomBytes(24).toString('base64url');
  const identities = new WeakMap<Client, BrokerIdentity>();
  const isCloudSecret = (password: Buffer | undefined) =>
    password !== undefined && password.length === cloudSecret.length && crypto.timingSafeEqual(password, Buffer.from(cloudSecret));

  const broker = await Aedes.createBroker({
    // Client ids are `locker-<cuid2>` (32 characters): above MQTT 3.1.1's guaranteed 23.
    maxClientsIdLength: 64,
    authenticate(client, username, password, done) {
      if (username === CLOUD_USERNAME) {
        if (!isCloudSecret(password)) return done(authError('bad cloud credentials', BAD_USERNAME_OR_PASSWORD), null);
        identities.set(client, { kind: 'cloud' });
        return done(null, true);
      }
      // A locker connecting under another locker's client id would take over (disconnect) its session.
      if (client.id !== `locker-${username}`) {
        logger.warn('mqtt connection refused: client id does not match the username', { username: username ?? null });
        return done(authError('client id must be locker-<username>', IDENTIFIER_REJECTED), null);
      }
      credentials.verify(username, password).then(
        (ok) => {
          if (!ok) {
            logger.warn('mqtt connection refused: bad agent credentials', { username: username ?? null });
            return done(authError('bad username or password', BAD_USERNAME_OR_PASSWORD), null);
          }
          identities.set(client, { kind: 'locker', lockerId: username! });
          done(null, true);
        },
        (err) => {
          logger.error('mqtt authentication failed', { err });
          done(authError('authentication unavailable', 3), null);
        },
      );
    },
    authorizePublish(client, packet, done) {
      const who = client ? identities.get(client) : { kind: 'cloud' as const };
      if (who && mayPublish(who, packet.topic)) return done(null);
      logger.warn('mqtt publish refused', { lockerId: who?.kind === 'locker' ? who.lockerId : null, topic: packet.topic });
      // MQTT 3.1.1 has no negative PUBACK: the offending connection is closed.
      done(new Error(`not authorized to publish on ${packet.topic}`));
    },
    authorizeSubscribe(client, sub, done) {
      const who = identities.get(client);
      if (who && maySubscribe(who, sub.topic)) return done(null, sub);
      logger.warn('mqtt subscription refused', { lockerId: who?.kind === 'locker' ? who.lockerId : null, topic: sub.topic });
      done(null, null); // SUBACK 0x80 for this filter
    },
  });

  const server = net.createServer((socket) => broker.handle(socket));
  try {
    await listenOn(server, options.port, options.host, `MQTT_PORT ${options.port} is already in use: choose another with MQTT_PORT=…, or use an external broker with MQTT_URL=mqtt://…`);
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
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
