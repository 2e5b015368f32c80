/**
 * The cloud's configuration, read from the environment once at start and validated, so a
 * typo fails start-up with a message naming the variable instead of failing a request later.
 */
import { z } from 'zod';
import { DEFAULT_AUTH_LIMITS, type AuthLimitsConfig } from './deps.ts';
import { DEFAULT_BROKER_LIMITS, type BrokerLimits } from './sync/broker-limits.ts';
import type { HttpLimits } from './http/server-limits.ts';
import type { SyncSettings } from './sync/index.ts';
import {
  DEFAULT_PENDING_ORDERS_PER_LOCKER,
  DEFAULT_UNPLACED_ORDER_DAYS,
  MIN_PENDING_ORDERS_PER_LOCKER,
} from './domain/order-limits.ts';
import { DEFAULT_EVENT_MAX_ATTEMPTS } from './domain/locker-sync.ts';
import { parseAllowList, type TargetPolicy } from './domain/outbound-targets.ts';
import { days, RETENTION_ENV, type RetentionConfig } from './retention/settings.ts';

const port = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a port number` })
    .int(`${name} must be a whole number`)
    .min(0, `${name} must be 0-65535`)
    .max(65535, `${name} must be 0-65535`);

export { RETENTION_ENV, type RetentionConfig };

/** Where `/api/v1/public/postomat/map/{shortId}` redirects unless MAP_URL_TEMPLATE says otherwise. */
export const DEFAULT_MAP_URL_TEMPLATE = 'https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=18/{lat}/{lng}';

const whole = (name: string, min: number, max: number, fallback: number, note = '') =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be >= ${min}${note}`)
    .max(max, `${name} must be <= ${max}`)
    .default(fallback);

/** The embedded broker's limits (docs/security.md, "Broker limits"). */
const BROKER_ENV = {
  MQTT_MAX_CONNECTIONS: whole('MQTT_MAX_CONNECTIONS', 1, 1_000_000, DEFAULT_BROKER_LIMITS.maxConnections),
  MQTT_MAX_CONNECTIONS_PER_ADDRESS: whole(
    'MQTT_MAX_CONNECTIONS_PER_ADDRESS',
    0,
    1_000_000,
    DEFAULT_BROKER_LIMITS.maxConnectionsPerAddress,
    ' (0 turns the cap off)',
  ),
  MQTT_CONNECT_TIMEOUT_MS: whole('MQTT_CONNECT_TIMEOUT_MS', 100, 60_000, DEFAULT_BROKER_LIMITS.connectTimeoutMs),
  MQTT_MAX_CONNECT_BYTES: whole('MQTT_MAX_CONNECT_BYTES', 512, 65_536, DEFAULT_BROKER_LIMITS.maxConnectBytes),
  MQTT_MAX_PACKET_BYTES: whole('MQTT_MAX_PACKET_BYTES', 4_096, 268_435_455, DEFAULT_BROKER_LIMITS.maxPacketBytes),
  MQTT_LOGIN_FAILURE_MAX: whole(
    'MQTT_LOGIN_FAILURE_MAX',
    0,
    1_000_000,
    DEFAULT_BROKER_LIMITS.loginFailureMax,
    ' (0 turns the backoff off)',
  ),
  MQTT_LOGIN_FAILURE_WINDOW_MS: whole(
    'MQTT_LOGIN_FAILURE_WINDOW_MS',
    1_000,
    86_400_000,
    DEFAULT_BROKER_LIMITS.loginFailureWindowMs,
  ),
};

const ms = (name: string, min: number, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number of milliseconds` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be >= ${min}`)
    .default(fallback);
const cap = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(0, `${name} must be >= 0 (0 turns the cap off)`)
    .default(fallback);

/** The HTTP server's own limits (cloud/http/server-limits.ts, docs/security.md "HTTP limits"). */
const HTTP_LIMITS_ENV = {
  HTTP_HEADERS_TIMEOUT_MS: ms('HTTP_HEADERS_TIMEOUT_MS', 100, 10_000),
  HTTP_REQUEST_TIMEOUT_MS: ms('HTTP_REQUEST_TIMEOUT_MS', 100, 30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: ms('HTTP_KEEP_ALIVE_TIMEOUT_MS', 100, 65_000),
  HTTP_MAX_CONNECTIONS: cap('HTTP_MAX_CONNECTIONS', 512),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: cap('HTTP_MAX_CONNECTIONS_PER_ADDRESS', 64),
};

/** Where /metrics is served (cloud/metrics/endpoint.ts, docs/operations.md "Metrics"). */
const METRICS_ENV = {
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // 'off': no listener of its own (with METRICS_TOKEN, /metrics is still on the API port).
  METRICS_PORT: z
    .union([z.literal('off'), port('METRICS_PORT')], { error: 'METRICS_PORT must be a port number or off' })
    .default(9464),
  METRICS_TOKEN: z
    .string()
    .min(16, 'METRICS_TOKEN must be at least 16 characters (e.g. openssl rand -hex 24)')
    .max(512, 'METRICS_TOKEN must be at most 512 characters')
    .optional(),
};

const EnvSchema = z
  .object({
    ...METRICS_ENV,
    ...RETENTION_ENV,
    ...BROKER_ENV,
    PORT: port('PORT').default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z.string().min(1, 'DATABASE_URL must not be empty').default('./data/cloud.db'),
    // SQLite: prepared reads run together at the end of each event-loop turn (cloud/storage/read-batcher.ts), or each where asked.
    SQLITE_READS: z
      .enum(['end-of-turn', 'in-place'], { error: 'SQLITE_READS must be end-of-turn or in-place' })
      .default('end-of-turn'),
    // PostgreSQL: each connection names its repeated statements (cloud/storage/pg-named-statements.ts); off behind a pooler in transaction mode.
    POSTGRES_NAMED_STATEMENTS: z
      .enum(['on', 'off'], { error: 'POSTGRES_NAMED_STATEMENTS must be on or off' })
      .default('on'),
    MQTT_PORT: port('MQTT_PORT').default(1883),
    MQTT_URL: z
      .string()
      .regex(/^(mqtts?|wss?|tcp):\/\//, 'MQTT_URL must start with mqtt://, mqtts://, ws:// or wss://')
      .optional(),
    MQTT_USERNAME: z.string().optional(),
    MQTT_PASSWORD: z.string().optional(),
    /** the broker as lockers in the field reach it, handed out at enrolment (docs/field-technicians.md) */
    AGENT_MQTT_URL: z
      .string()
      .regex(/^(mqtts?|wss?|tcp):\/\/[^\s]{1,500}$/, 'AGENT_MQTT_URL must be a mqtt://, mqtts://, ws:// or wss:// URL')
      .optional(),
    // Safety nets: changes wake the publisher and the dispatcher after their commit (change-feed.ts).
    SYNC_POLL_MS: z.coerce
      .number({ error: 'SYNC_POLL_MS must be a number' })
      .int()
      .min(5, 'SYNC_POLL_MS must be >= 5')
      .max(60_000, 'SYNC_POLL_MS must be <= 60000')
      .default(5_000),
    EVENT_POLL_MS: z.coerce
      .number({ error: 'EVENT_POLL_MS must be a number' })
      .int()
      .min(5, 'EVENT_POLL_MS must be >= 5')
      .max(60_000, 'EVENT_POLL_MS must be <= 60000')
      .default(5_000),
    RATE_LIMIT_MAX: z.coerce
      .number({ error: 'RATE_LIMIT_MAX must be a number' })
      .int()
      .min(0, 'RATE_LIMIT_MAX must be >= 0 (0 turns limiting off)')
      .default(600),
    RATE_LIMIT_WINDOW_MS: z.coerce
      .number({ error: 'RATE_LIMIT_WINDOW_MS must be a number' })
      .int()
      .min(1, 'RATE_LIMIT_WINDOW_MS must be >= 1')
      .default(60_000),
    AUTH_FAILURE_MAX: z.coerce
      .number({ error: 'AUTH_FAILURE_MAX must be a number' })
      .int()
      .min(0, 'AUTH_FAILURE_MAX must be >= 0 (0 turns the limit off)')
      .default(DEFAULT_AUTH_LIMITS.failureMax),
    AUTH_FAILURE_WINDOW_MS: z.coerce
      .number({ error: 'AUTH_FAILURE_WINDOW_MS must be a number' })
      .int()
      .min(1000, 'AUTH_FAILURE_WINDOW_MS must be >= 1000')
      .default(DEFAULT_AUTH_LIMITS.failureWindowMs),
    LOGIN_FAILURE_MAX: z.coerce
      .number({ error: 'LOGIN_FAILURE_MAX must be a number' })
      .int()
      .min(0, 'LOGIN_FAILURE_MAX must be >= 0 (0 turns the limit off)')
      .default(DEFAULT_AUTH_LIMITS.loginFailureMax),
    LOGIN_FAILURE_WINDOW_MS: z.coerce
      .number({ error: 'LOGIN_FAILURE_WINDOW_MS must be a number' })
      .int()
      .min(1000, 'LOGIN_FAILURE_WINDOW_MS must be >= 1000')
      .default(DEFAULT_AUTH_LIMITS.loginFailureWindowMs),
    MAP_URL_TEMPLATE: z
      .string()
      .includes('{lat}', { message: 'MAP_URL_TEMPLATE must contain {lat} and {lng}' })
      .includes('{lng}', { message: 'MAP_URL_TEMPLATE must contain {lat} and {lng}' })
      .default(DEFAULT_MAP_URL_TEMPLATE),
    LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error'], { error: 'LOG_LEVEL must be debug, info, warn or error' })
      .default('info'),
    PUBLIC_BASE_URL: z.url({ error: 'PUBLIC_BASE_URL must be a URL such as https://lockers.example.com' }).optional(),
    WEBHOOKS_ENABLED: z
      .enum(['true', 'false'], { error: 'WEBHOOKS_ENABLED must be true or false' })
      .default('true')
      .transform((v) => v === 'true'),
    EVENT_TIMEOUT_MS: z.coerce
      .number({ error: 'EVENT_TIMEOUT_MS must be a number' })
      .int()
      .min(100, 'EVENT_TIMEOUT_MS must be >= 100')
      .default(5_000),
    // How long a claimed outbox row waits for its sender before another process may send it again.
    EVENT_LEASE_MS: z.coerce
      .number({ error: 'EVENT_LEASE_MS must be a number' })
      .int()
      .min(1000, 'EVENT_LEASE_MS must be >= 1000')
      .optional(),
    EVENT_CONCURRENCY: z.coerce
      .number({ error: 'EVENT_CONCURRENCY must be a number' })
      .int()
      .min(1, 'EVENT_CONCURRENCY must be >= 1')
      .max(1000, 'EVENT_CONCURRENCY must be <= 1000')
      .default(16),
    // Outbound targets (docs/security.md#webhook-targets): public addresses only unless listed here.
    WEBHOOK_ALLOW_HOSTS: z
      .string()
      .default('')
      .superRefine((v, ctx) => {
        for (const e of parseAllowList(v).errors)
          ctx.addIssue({ code: 'custom', message: `${e} (expected e.g. hooks.internal,10.1.2.0/24,127.0.0.1)` });
      }),
    WEBHOOK_ALLOW_PRIVATE: z
      .enum(['true', 'false'], { error: 'WEBHOOK_ALLOW_PRIVATE must be true or false' })
      .default('false')
      .transform((v) => v === 'true'),
    // Webhook subscriptions (docs/integrators.md): retries with backoff and jitter, then the dead letter.
    WEBHOOK_RETRY_BASE_MS: z.coerce
      .number({ error: 'WEBHOOK_RETRY_BASE_MS must be a number' })
      .int()
      .min(10, 'WEBHOOK_RETRY_BASE_MS must be >= 10')
      .default(30_000),
    WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce
      .number({ error: 'WEBHOOK_RETRY_MAX_DELAY_MS must be a number' })
      .int()
      .min(10, 'WEBHOOK_RETRY_MAX_DELAY_MS must be >= 10')
      .default(6 * 3_600_000),
    WEBHOOK_RETRY_WINDOW_MS: z.coerce
      .number({ error: 'WEBHOOK_RETRY_WINDOW_MS must be a number' })
      .int()
      .min(10, 'WEBHOOK_RETRY_WINDOW_MS must be >= 10')
      .max(7 * 86_400_000, 'WEBHOOK_RETRY_WINDOW_MS must be <= 604800000 (a week)')
      .default(86_400_000),
    SMS_PROVIDER: z.enum(['log', 'http'], { error: 'SMS_PROVIDER must be log or http' }).default('log'),
    SMS_GATEWAY_URL: z.url({ error: 'SMS_GATEWAY_URL must be an http(s) URL' }).optional(),
    SMS_GATEWAY_TOKEN: z.string().optional(),
    JWT_SECRET: z
      .string()
      .min(32, 'JWT_SECRET must be at least 32 characters (e.g. openssl rand -base64 48)')
      .optional(),
    NODE_ENV: z.string().optional(),
    // Sandbox endpoints that drive the simulated fleet (docs/sandbox.md); never on a production cloud.
    SANDBOX: z
      .enum(['true', 'false'], { error: 'SANDBOX must be true or false' })
      .default('false')
      .transform((v) => v === 'true'),
    ...HTTP_LIMITS_ENV,
    // Locker orders that no company may use to shut the others out of a locker (docs/decisions.md).
    PENDING_ORDERS_PER_LOCKER: z.coerce
      .number({ error: 'PENDING_ORDERS_PER_LOCKER must be a number' })
      .int('PENDING_ORDERS_PER_LOCKER must be a whole number')
      .min(
        MIN_PENDING_ORDERS_PER_LOCKER,
        `PENDING_ORDERS_PER_LOCKER must be >= ${MIN_PENDING_ORDERS_PER_LOCKER} (integrators book ahead)`,
      )
      .max(10_000, 'PENDING_ORDERS_PER_LOCKER must be <= 10000')
      .default(DEFAULT_PENDING_ORDERS_PER_LOCKER),
    UNPLACED_ORDER_DAYS: days('UNPLACED_ORDER_DAYS', DEFAULT_UNPLACED_ORDER_DAYS),
    // Sized orders (issue 22): cells promised per size at most free cells times this (docs/configuration.md).
    OVERBOOKING_RATIO: z.coerce
      .number({ error: 'OVERBOOKING_RATIO must be a number' })
      .min(1, 'OVERBOOKING_RATIO must be >= 1 (1: never promise more cells than are free)')
      .max(3, 'OVERBOOKING_RATIO must be <= 3')
      .default(1),
    ORDER_EXPIRY_INTERVAL_MS: z.coerce
      .number({ error: 'ORDER_EXPIRY_INTERVAL_MS must be a number' })
      .int()
      .min(0, 'ORDER_EXPIRY_INTERVAL_MS must be >= 0 (0: never on its own)')
      .default(300_000),
    // An event that keeps failing is set aside after this many attempts (docs/locker-sync.md).
    LOCKER_EVENT_MAX_ATTEMPTS: z.coerce
      .number({ error: 'LOCKER_EVENT_MAX_ATTEMPTS must be a number' })
      .int()
      .min(1, 'LOCKER_EVENT_MAX_ATTEMPTS must be >= 1')
      .max(100, 'LOCKER_EVENT_MAX_ATTEMPTS must be <= 100')
      .default(DEFAULT_EVENT_MAX_ATTEMPTS),
  })
  .refine((c) => c.SMS_PROVIDER !== 'http' || c.SMS_GATEWAY_URL, {
    path: ['SMS_GATEWAY_URL'],
    message: 'SMS_GATEWAY_URL is required when SMS_PROVIDER=http',
  })
  .refine((c) => c.EVENT_LEASE_MS === undefined || c.EVENT_LEASE_MS > c.EVENT_TIMEOUT_MS, {
    path: ['EVENT_LEASE_MS'],
    message: 'EVENT_LEASE_MS must be longer than EVENT_TIMEOUT_MS (a live sender must finish first)',
  })
  // Several instances must sign with one secret, so production never falls back to a generated one.
  // Node refuses a request deadline shorter than the headers' one.
  .refine((c) => c.HTTP_REQUEST_TIMEOUT_MS >= c.HTTP_HEADERS_TIMEOUT_MS, {
    path: ['HTTP_REQUEST_TIMEOUT_MS'],
    message: 'HTTP_REQUEST_TIMEOUT_MS must be >= HTTP_HEADERS_TIMEOUT_MS',
  })
  .refine((c) => c.NODE_ENV !== 'production' || !c.SANDBOX, {
    path: ['SANDBOX'],
    message: 'SANDBOX=true is for trying the API against simulated lockers, not for NODE_ENV=production',
  })
  .refine((c) => c.NODE_ENV !== 'production' || c.JWT_SECRET, {
    path: ['JWT_SECRET'],
    message: 'JWT_SECRET is required when NODE_ENV=production (at least 32 characters)',
  });

export type CloudConfig = z.infer<typeof EnvSchema>;

/** The failure limits as AppConfig.authLimits carries them. */
export const authLimitsOf = (c: CloudConfig): AuthLimitsConfig => ({
  failureMax: c.AUTH_FAILURE_MAX,
  failureWindowMs: c.AUTH_FAILURE_WINDOW_MS,
  loginFailureMax: c.LOGIN_FAILURE_MAX,
  loginFailureWindowMs: c.LOGIN_FAILURE_WINDOW_MS,
});

/** The embedded broker's limits as the broker takes them. */
export const brokerLimitsOf = (c: CloudConfig): BrokerLimits => ({
  maxConnections: c.MQTT_MAX_CONNECTIONS,
  maxConnectionsPerAddress: c.MQTT_MAX_CONNECTIONS_PER_ADDRESS,
  connectTimeoutMs: c.MQTT_CONNECT_TIMEOUT_MS,
  maxConnectBytes: c.MQTT_MAX_CONNECT_BYTES,
  maxPacketBytes: c.MQTT_MAX_PACKET_BYTES,
  loginFailureMax: c.MQTT_LOGIN_FAILURE_MAX,
  loginFailureWindowMs: c.MQTT_LOGIN_FAILURE_WINDOW_MS,
});

/** The locker link's settings as startSync takes them. */
export const syncSettingsOf = (c: CloudConfig): SyncSettings => ({
  mqttUrl: c.MQTT_URL,
  mqttUsername: c.MQTT_USERNAME,
  mqttPassword: c.MQTT_PASSWORD,
  mqttPort: c.MQTT_PORT,
  host: c.HOST,
  brokerLimits: brokerLimitsOf(c),
  pollMs: c.SYNC_POLL_MS,
});

/** The HTTP server's limits as createHttpServer takes them. */
export const httpLimitsOf = (c: CloudConfig): HttpLimits => ({
  headersTimeoutMs: c.HTTP_HEADERS_TIMEOUT_MS,
  requestTimeoutMs: c.HTTP_REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: c.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  maxConnections: c.HTTP_MAX_CONNECTIONS,
  maxConnectionsPerAddress: c.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
});

/**
 * Where webhooks and company notifications may go. Loopback needs NODE_ENV=development or an
 * entry in WEBHOOK_ALLOW_HOSTS (the demo and the tests list 127.0.0.1).
 */
export function targetPolicyOf(c: CloudConfig): TargetPolicy {
  const { hosts, ranges } = parseAllowList(c.WEBHOOK_ALLOW_HOSTS);
  return { allowLoopback: c.NODE_ENV === 'development', allowPrivate: c.WEBHOOK_ALLOW_PRIVATE, hosts, ranges };
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CloudConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = EnvSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

/** Only the retention settings, validated by the same rules: what the operator's `retention run` needs. */
export function loadRetentionConfig(env: NodeJS.ProcessEnv = process.env): RetentionConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => k in RETENTION_ENV && v !== undefined && v !== ''),
  );
  const result = z.object(RETENTION_ENV).safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
