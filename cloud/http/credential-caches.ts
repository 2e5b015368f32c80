/**
 * Every credential cache of one app, so that a revocation can empty them all at once.
 *
 * A cache remembers for `ttlMs` what a valid credential resolved to: a database lookup per
 * request would cost more than most reads it guards. Keyed by the credential itself, which is in
 * this process's memory for the request anyway; storage only ever holds its hash. Unknown
 * credentials are not remembered: the failure limit per address (failure-limit.ts) keeps their
 * lookups few, and a flood of guesses cannot push valid entries out.
 *
 * Revocation: a route that deletes or switches off a credential calls `revokeAll()` after its
 * change committed, so this process refuses the credential on the very next request. Other
 * processes learn it from the change notifications between processes, which call `revokeAll()`
 * too; until those are wired, `ttlMs` bounds how long they may still accept it.
 */
import type { Clock } from '../../shared/clock.ts';

export const CREDENTIAL_CACHE_MS = 5_000;
/** entries per cache; valid credentials only, so reaching it means as many live keys in use */
const CACHE_CAPACITY = 10_000;

/** What valid credentials resolved to: `cached` answers from memory or not at all, `load` looks up and remembers. */
export interface CredentialCache<T> {
  cached(credential: string): T | undefined;
  load(credential: string): Promise<T | undefined>;
}

export class CredentialCaches {
  private readonly caches: Array<Map<string, unknown>> = [];
  /** bumped by every revocation: a lookup that was under way then may have read the row before it changed */
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    readonly ttlMs = CREDENTIAL_CACHE_MS,
  ) {}

  /**
   * A cache in front of `find`. `cached` is synchronous, so a known credential lets the
   * middleware call the next handler in the same tick, with no promise per request.
   */
  cache<T>(find: (credential: string) => Promise<T | undefined>): CredentialCache<T> {
    const entries = new Map<string, { value: T; until: number }>();
    this.caches.push(entries);
    return {
      cached: (credential) => {
        const hit = entries.get(credential);
        return hit && hit.until >= this.clock.now().getTime() ? hit.value : undefined;
      },
      load: async (credential) => {
        const generation = this.generation;
        const until = this.clock.now().getTime() + this.ttlMs;
        const value = await find(credential);
        if (value === undefined) entries.delete(credential);
        else if (generation === this.generation) {
          if (entries.size >= CACHE_CAPACITY) entries.clear();
          entries.set(credential, { value, until });
        }
        return value;
      },
    };
  }

  /** Forgets every cached credential; the next request with any of them is looked up again. */
  revokeAll(): void {
    this.generation++;
    for (const cache of this.caches) cache.clear();
  }

  /** cached credentials, all caches together */
  get size(): number {
    return this.caches.reduce((n, c) => n + c.size, 0);
  }
}
