import type { Clock } from '../clock.ts';

/**
 * Remembers what a credential resolved to (or that it resolved to nothing) for `ttlMs`: a
 * database lookup per request would cost more than most reads it guards. Keyed by the
 * credential itself, which is in this process's memory for the request anyway; storage only
 * ever holds its hash. A revoked credential may therefore work for up to `ttlMs` more.
 */
export function cachedLookup<T>(clock: Clock, ttlMs: number, lookup: (credential: string) => Promise<T | undefined>) {
  const cache = new Map<string, { value: T | null; until: number }>();
  return async (credential: string): Promise<T | null> => {
    const now = clock.now().getTime();
    let hit = cache.get(credential);
    if (!hit || hit.until < now) {
      if (cache.size > 10_000) cache.clear();
      hit = { value: (await lookup(credential)) ?? null, until: now + ttlMs };
      cache.set(credential, hit);
    }
    return hit.value;
  };
}
