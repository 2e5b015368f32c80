/**
 * The Locker API's optional `Idempotency-Key` header (issue 22): present, it makes a POST's
 * repeat within 24 hours answer the same and change nothing; absent, the request behaves
 * exactly as the spec says. A key reused with another request is 409 IDEMPOTENCY_KEY_REUSED.
 */
import type { Request } from 'express';
import { validationError } from '../http/http-error.ts';
import { withStatuses } from '../http/error-map.ts';
import { IDEMPOTENCY_KEY_MAX, requestFingerprint } from '../domain/platform/market-idempotency.ts';
import type { IdempotencyKey } from '../services/idempotency.ts';

export function idempotencyKeyOf(req: Request, companyId: string, now: Date): IdempotencyKey | undefined {
  const key = req.get('idempotency-key')?.trim();
  if (key === undefined) return undefined;
  if (!key) throw validationError('headers/idempotency-key must NOT have fewer than 1 characters');
  if (key.length > IDEMPOTENCY_KEY_MAX)
    throw validationError(`headers/idempotency-key must NOT have more than ${IDEMPOTENCY_KEY_MAX} characters`);
  return {
    companyId,
    key,
    fingerprint: requestFingerprint({ method: req.method, path: req.path, body: req.body ?? null }),
    now,
  };
}

/** The Locker API answers a reused key with 409 (error-map.ts STATUS_EXCEPTIONS). */
export const reusedKeyIs409 = <T>(work: () => Promise<T>) => withStatuses('lockerIdempotency', work);

export const IDEMPOTENCY_HEADER_DOC = {
  name: 'Idempotency-Key',
  required: false,
  maxLength: IDEMPOTENCY_KEY_MAX,
  description:
    'optional: the same key and body within 24 hours get the first answer back and change nothing; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED',
};
