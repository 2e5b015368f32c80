/** What the HTTP app and the services are built from; everything external is passed in. */
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import type { Db, DialectName } from './storage/database.ts';
import type { RandomInt } from './domain/codes.ts';
import type { UnitOfWork } from './services/unit-of-work.ts';

export interface RateLimitConfig {
  /** requests per window per API key (0 switches limiting off) */
  max: number;
  windowMs: number;
}

export interface AppConfig {
  rateLimit: RateLimitConfig;
  /** where `/public/postomat/map/{shortId}` redirects; {lat} and {lng} are filled in */
  mapUrlTemplate: string;
  /** signs platform user tokens; without it the platform signs with a per-process random secret */
  jwtSecret?: string;
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
}

export const DEFAULT_APP_CONFIG: AppConfig = {
  rateLimit: { max: 600, windowMs: 60_000 },
  mapUrlTemplate: 'https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=18/{lat}/{lng}',
};
