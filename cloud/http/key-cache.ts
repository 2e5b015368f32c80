import type { Clock } from '../clock.ts';

/**
 * Remembers what a credential resolved to (or that it resolved to nothing) for `ttlMs`: a
 * database lookup per request would cost more than most reads it guards. Keyed by the
 * credential itself, which is in this process's memory for the request anyway; storage only
 * ever holds its hash. A revoked credential may therefore work for up to `ttlMs` more.
 *
 * A fresh entry is returned as is, not as a promise: the middleware then calls the next
 * handler in the same tick, with no promise and microtask per request.
 */
export function cachedLookup<T>(clock: Clock, ttlMs: number, lookup: (credential: string) => Promise<T | undefined>) {
  const cache = new Map<string, { value: T | null; until: number }>();
  return (credential: string): T | null | Promise<T | null> => {
    const now = clock.now().getTime();
    const hit = cache.get(credential);
    if (hit && hit.until >= now) return hit.value;
    return lookup(credential).then((value) => {
      if (cache.size > 10_000) cache.clear();
      cache.set(credential, { value: value ?? null, until: now + ttlMs });
      return value ?? null;
    });
  };
}
