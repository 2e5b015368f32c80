/**
 * The Locker API's Idempotency-Key (issue 22): the same key and request within 24 hours get the
 * first answer back and change nothing; the same key with another request is refused. The key is
 * claimed by a unique insert in the very transaction that does the work and stores its answer,
 * so a claim is never visible without its answer (on PostgreSQL a concurrent duplicate waits on
 * the claim's row until the first commits; SQLite runs one writer at a time). A request that
 * fails leaves no claim behind: its retry runs again.
 */
import type { Db } from '../storage/database.ts';
import {
  insertLockerKeyClaim,
  lockerKeyRow,
  storeLockerKeyAnswer,
  takeOverLockerKey,
} from '../storage/locker-idempotency-queries.ts';
import { claimKey, type KeyStore } from './idempotency-claim.ts';
import type { Tx, UnitOfWork } from './unit-of-work.ts';

export const LOCKER_IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export interface IdempotencyKey {
  companyId: string;
  key: string;
  /** of the method, path and body (domain/platform/market-idempotency.ts requestFingerprint) */
  fingerprint: string;
  now: Date;
}

/** Runs `work` in one unit of work, once per key and window when a key is given. */
export function runIdempotent<T>(
  uow: UnitOfWork,
  key: IdempotencyKey | undefined,
  work: (tx: Tx) => Promise<T>,
  redrawAttempts = 1,
): Promise<T> {
  if (!key) return uow.run(work, { redrawAttempts });
  return uow.run(
    async (tx) => {
      const stored = await claim(tx.db, key);
      if (stored !== undefined) return JSON.parse(stored) as T;
      const body = await work(tx);
      await storeLockerKeyAnswer(tx.db, key, JSON.stringify(body ?? null));
      return body;
    },
    { redrawAttempts: Math.max(redrawAttempts, 2) },
  );
}

function claim(trx: Db, req: IdempotencyKey): Promise<string | undefined> {
  const fresh = () => ({
    requestHash: req.fingerprint,
    responseStatus: null,
    responseBody: null,
    createdAt: req.now.toISOString(),
  });
  const store: KeyStore = {
    insert: () => insertLockerKeyClaim(trx, req, fresh()),
    read: () => lockerKeyRow(trx, req),
    takeOver: (createdAt) => takeOverLockerKey(trx, req, createdAt, fresh()),
  };
  return claimKey(
    store,
    req.fingerprint,
    req.now,
    LOCKER_IDEMPOTENCY_WINDOW_MS,
    'this Idempotency-Key was used with another request in the last 24 hours',
  );
}
