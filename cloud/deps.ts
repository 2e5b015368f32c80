/** What the HTTP app and the services are built from; everything external is passed in. */
import type { Clock } from '../shared/clock.ts';
import type { Logger } from './logger.ts';
import type { Db, DialectName } from './storage/database.ts';
import type { RandomInt } from './domain/codes.ts';
import type { UnitOfWork } from './services/unit-of-work.ts';
import type { CredentialCaches } from './http/credential-caches.ts';
import type { AppLimits } from './http/app-guards.ts';
import type { LimitsConfig } from './http/limits-config.ts';
import type { TargetPolicy } from './domain/outbound-targets.ts';
import type { SandboxSlot } from './services/sandbox/fleet-port.ts';
import type { Express, Request } from 'express';
import type { RequestScope } from './http/request-id.ts';
import type { CloudMetrics } from './metrics/cloud-metrics.ts';

export { DEFAULT_AUTH_LIMITS, type AuthLimitsConfig, type RateLimitConfig } from './http/limits-config.ts';

export interface AppConfig extends LimitsConfig {
  /** where `/public/postomat/map/{shortId}` redirects; {lat} and {lng} are filled in */
  mapUrlTemplate: string;
  /** signs platform user tokens (JWT_SECRET, or the one kept beside the database: platform-api/jwt-secret.ts) */
  jwtSecret: string;
  /** a company's orders waiting for placement at one locker (domain/order-limits.ts default when absent) */
  pendingOrdersPerLocker?: number;
  /** sized orders: cells promised per size at most free cells times this (1 when absent) */
  overbookingRatio?: number;
  /** where webhook URLs may point (checked when saved); public addresses only when absent */
  outboundTargets?: TargetPolicy;
}

export interface AppDeps {
  db: Db;
  dialect: DialectName;
  clock: Clock;
  logger: Logger;
  config: AppConfig;
  /** every operation that changes orders runs in it (services/unit-of-work.ts) */
  uow: UnitOfWork;
  randomInt?: RandomInt;
  /** every credential cache of the app: routes that revoke, and notifications from other processes, call revokeAll() (buildApp creates it when absent) */
  credentials?: CredentialCaches;
  /** the app's request and failure counters (buildApp creates them when absent) */
  limits?: AppLimits;
  /** SANDBOX=true: the sandbox endpoints drive the simulated fleet plugged in here (docs/sandbox.md) */
  sandbox?: SandboxSlot;
  /** the broker address handed to an enrolling locker (AGENT_MQTT_URL, or the cloud's broker at the request's host) */
  agentBrokerUrl?: (req: Request) => string;
  /** the current request's id for log lines (http/request-id.ts); buildApp creates it, and wraps `logger`, when absent */
  requests?: RequestScope;
  /** counts and times requests when present (cloud/metrics) */
  metrics?: CloudMetrics;
  /** `/ready`'s view of the broker link (absent: no broker to check) */
  brokerConnected?: () => boolean;
}

/** Adds routes to the app (the extra mounts of buildApp, and the families that mount themselves). */
export type Mount = (app: Express, deps: AppDeps) => void;
