/**
 * When a failed delivery is tried again: exponential backoff with "equal jitter" (half the
 * delay fixed, half random), so retries of many deliveries spread out while each delay is still
 * at least the previous one; and the dead letter once the retry window is spent.
 */
export interface RetryPolicy {
  /** delay after the first failed attempt (before jitter) */
  baseMs: number;
  /** the largest delay between two attempts */
  maxDelayMs: number;
  /** no attempt is planned later than this after the event (24 h by default) */
  windowMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseMs: 30_000,
  maxDelayMs: 6 * 3_600_000,
  windowMs: 24 * 3_600_000,
};

/** `random` in [0, 1). Undefined: the delivery goes to the dead letter. */
export function nextAttemptAt(
  policy: RetryPolicy,
  firstAt: Date,
  failedAttempts: number,
  now: Date,
  random: number,
): Date | undefined {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.min(failedAttempts - 1, 40));
  const delay = Math.round(ceiling / 2 + (ceiling / 2) * random);
  const at = now.getTime() + delay;
  return at - firstAt.getTime() > policy.windowMs ? undefined : new Date(at);
}
