/** The request and authentication limits an app is configured with (cloud/config.ts fills them from the environment). */
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

export const DEFAULT_AUTH_LIMITS: AuthLimitsConfig = {
  failureMax: 100,
  failureWindowMs: 600_000,
  loginFailureMax: 10,
  loginFailureWindowMs: 900_000,
};

export interface LimitsConfig {
  rateLimit: RateLimitConfig;
  /** DEFAULT_AUTH_LIMITS when absent */
  authLimits?: AuthLimitsConfig;
}
