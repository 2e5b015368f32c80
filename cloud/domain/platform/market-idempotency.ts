/**
 * The marketplace's Idempotency-Key rule (POST /parcel/create): a repeat of the same request
 * with the same key within one hour gets the first response back and creates nothing; the
 * same key with another request is refused; after the hour the key starts afresh.
 */
import crypto from 'node:crypto';

export const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;
/** Keys are opaque to us; a UUID fits many times over. */
export const IDEMPOTENCY_KEY_MAX = 255;

/** sha256 of the request with object keys sorted, so field order does not make a request "different". */
export function requestFingerprint(request: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(request)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export type KeyUse = 'REPLAY' | 'REUSED' | 'EXPIRED';

/** What a request whose key is already on record gets: the stored answer, a refusal, or a fresh start. */
export function keyUse(
  stored: { createdAt: string; requestHash: string | null },
  fingerprint: string,
  now: Date,
  windowMs = IDEMPOTENCY_WINDOW_MS,
): KeyUse {
  if (now.getTime() - Date.parse(stored.createdAt) >= windowMs) return 'EXPIRED';
  return stored.requestHash === fingerprint ? 'REPLAY' : 'REUSED';
}
