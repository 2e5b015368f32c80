/**
 * Fixed-window request limits. Windows live in this process's memory: with several cloud
 * instances each enforces its own share (documented in the README), which keeps the hot
 * path free of a database round trip.
 */
import type { RequestHandler } from 'express';
import type { Clock } from '../clock.ts';
import { HttpError } from './http-error.ts';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  clock: Clock;
  /** the identity a window is counted for; undefined skips limiting */
  keyOf: (req: Parameters<RequestHandler>[0]) => string | undefined;
}

export function rateLimit(options: RateLimitOptions): RequestHandler {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return (req, res, next) => {
    if (options.max <= 0) return next();
    const key = options.keyOf(req);
    if (key === undefined) return next();
    const now = options.clock.now().getTime();
    if (now - lastSweep > options.windowMs) {
      for (const [k, w] of windows) if (now - w.start >= options.windowMs) windows.delete(k);
      lastSweep = now;
    }
    let w = windows.get(key);
    if (!w || now - w.start >= options.windowMs) {
      w = { start: now, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    const resetSeconds = Math.max(1, Math.ceil((w.start + options.windowMs - now) / 1000));
    res.setHeader('x-ratelimit-limit', String(options.max));
    res.setHeader('x-ratelimit-remaining', String(Math.max(0, options.max - w.count)));
    res.setHeader('x-ratelimit-reset', String(resetSeconds));
    if (w.count > options.max) {
      throw new HttpError(429, 'Too Many Requests', { code: 'RATE_LIMIT_EXCEEDED', headers: { 'Retry-After': String(resetSeconds) } });
    }
    next();
  };
}
