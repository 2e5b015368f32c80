/**
 * Request limits: `max` requests per window per identity, counted in a bounded table
 * (limit-windows.ts). Windows live in this process's memory: with several cloud instances each
 * enforces its own share (docs/security.md), which keeps the hot path free of a
 * database round trip.
 */
import type { Request, RequestHandler } from 'express';
import { HttpError } from './http-error.ts';
import type { LimitWindows } from './limit-windows.ts';

/** The spec's refusal: 429 RATE_LIMIT_EXCEEDED, message `Too Many Requests`, Retry-After in seconds. */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new HttpError(429, 'Too Many Requests', {
    code: 'RATE_LIMIT_EXCEEDED',
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/** `keyOf` names the identity a request counts for; undefined lets it pass uncounted. `max` 0 switches limiting off. */
export function rateLimit(
  windows: LimitWindows,
  max: number,
  keyOf: (req: Request) => string | undefined,
): RequestHandler {
  if (max <= 0) return (_req, _res, next) => next();
  return (req, res, next) => {
    const key = keyOf(req);
    if (key === undefined) return next();
    const { count } = windows.add(key);
    const resetSeconds = windows.secondsLeft(key);
    const remaining = String(Math.max(0, max - count));
    res.setHeader('x-ratelimit-limit', String(max));
    res.setHeader('x-ratelimit-remaining', remaining);
    res.setHeader('x-ratelimit-reset', String(resetSeconds));
    // The IETF RateLimit header fields draft's names too (issue 22), beside the ones clients know.
    res.setHeader('RateLimit-Limit', String(max));
    res.setHeader('RateLimit-Remaining', remaining);
    res.setHeader('RateLimit-Reset', String(resetSeconds));
    if (count > max) throw tooManyRequests(resetSeconds);
    next();
  };
}
