/** What the HTTP app and the services are built from; everything external is passed in. */
import type { Clock } from '../shared/clock.ts';
import type { Logger } from './logger.ts';
import type { Db, DialectName } from './storage/database.ts';
import type { RandomInt } from './domain/codes.ts';
import type { UnitOfWork } from './services/unit-of-work.ts';
import type { CredentialCaches } from './http/credential-caches.ts';
import type { AppLimits } from './http/app-guards.ts';
import type { TargetPolicy } from './domain/outbound-targets.ts';

export interface RateLimitConfig {
  /** requests per window per API key (0 switches limiting off) */
  max: number;
  windowMs: number;
}

/** Failed authentications, counted before any credential is looked up (0 switches a limit off). */
export interface AuthLimitsConfig {
  /** failed authentications per client address per window, on every API family */
  failureMax: number;
  failureWindowMs: number;
  /** failed sign-ins per account (email) per window */
  loginFailureMax: number;
  loginFailureWindowMs: number;
}

export const DEFAULT_AUTH_LIMITS: AuthLimitsConfig = { failureMax: 100, failureWindowMs: 600_000, loginFailureMax: 10, loginFailureWindowMs: 900_000 };

export interface AppConfig {
  rateLimit: RateLimitConfig;
  /** where `/public/postomat/map/{shortId}` redirects; {lat} and {lng} are filled in */
  mapUrlTemplate: string;
  /** signs platform user tokens; without it the platform signs with a per-process random secret */
  jwtSecret?: string;
  /** DEFAULT_AUTH_LIMITS when absent */
  authLimits?: AuthLimitsConfig;
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
}

export const DEFAULT_APP_CONFIG: AppConfig = {
  rateLimit: { max: 600, windowMs: 60_000 },
  mapUrlTemplate: 'https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=18/{lat}/{lng}',
};
