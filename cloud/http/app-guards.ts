/**
 * What guards one app's doors, one of each per app: its limit tables and its credential caches.
 * They hang on AppDeps (created by buildApp when absent) so that the routes that revoke, the
 * change notifications between processes and the tests reach the same objects the middleware uses.
 */
import type { Request, RequestHandler } from 'express';
import type { Clock } from '../../shared/clock.ts';
import { DEFAULT_AUTH_LIMITS, type LimitsConfig } from './limits-config.ts';
import { CredentialCaches } from './credential-caches.ts';
import { FailureLimit } from './failure-limit.ts';
import { LimitWindows } from './limit-windows.ts';
import { rateLimit } from './rate-limit.ts';

export class AppLimits {
  /** failed authentications per client address, on every family (AUTH_FAILURE_MAX) */
  readonly addresses: FailureLimit;
  /** failed sign-ins per account (LOGIN_FAILURE_MAX) */
  readonly accounts: FailureLimit;
  private readonly tables = new Map<string, LimitWindows>();

  constructor(
    private readonly config: LimitsConfig,
    private readonly clock: Clock,
  ) {
    const limits = config.authLimits ?? DEFAULT_AUTH_LIMITS;
    this.addresses = new FailureLimit(limits.failureMax, limits.failureWindowMs, clock);
    this.accounts = new FailureLimit(limits.loginFailureMax, limits.loginFailureWindowMs, clock);
  }

  /** RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per `keyOf`, counted in the table `table`. */
  requests(table: string, keyOf: (req: Request) => string | undefined): RequestHandler {
    let windows = this.tables.get(table);
    if (!windows) {
      windows = new LimitWindows(this.config.rateLimit.windowMs, this.clock);
      this.tables.set(table, windows);
    }
    return rateLimit(windows, this.config.rateLimit.max, keyOf);
  }

  /** Entries per table, failure tables included: each stays at or below LIMIT_TABLE_CAPACITY. */
  sizes(): Record<string, number> {
    const sizes: Record<string, number> = {
      'failures:address': this.addresses.windows.size,
      'failures:account': this.accounts.windows.size,
    };
    for (const [name, windows] of this.tables) sizes[name] = windows.size;
    return sizes;
  }
}

export interface AppGuards {
  credentials: CredentialCaches;
  limits: AppLimits;
}

/** What an app's guards hang on (AppDeps). */
export interface GuardHolder {
  config: LimitsConfig;
  clock: Clock;
  credentials?: CredentialCaches;
  limits?: AppLimits;
}

export function guardsOf(deps: GuardHolder): AppGuards {
  deps.credentials ??= new CredentialCaches(deps.clock);
  deps.limits ??= new AppLimits(deps.config, deps.clock);
  return { credentials: deps.credentials, limits: deps.limits };
}
