/**
 * POST /parcel/create under its Idempotency-Key. The key is claimed by a unique insert in the
 * very transaction that creates the parcel and stores the answer, so a claim is never visible
 * without its answer:
 * - on PostgreSQL a concurrent duplicate's insert waits on the claim's row until the creator
 *   commits (then it reads the stored answer) or rolls back (then it claims the key itself);
 * - on SQLite transactions run one at a time, so a duplicate finds the committed answer.
 * Failed requests leave no claim behind: a retry with the same key runs again, as the spec's
 * retry guidance expects. Past the one-hour window the key is claimed afresh.
 */
import type { Db } from '../../storage/database.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../domain/platform/market-idempotency.ts';
import { claimKey, type KeyStore } from '../idempotency-claim.ts';
import type { Tx, UnitOfWork } from '../unit-of-work.ts';
import {
  findKeyClaim,
  insertKeyClaim,
  storeKeyAnswer,
  takeOverKeyClaim,
  type FreshClaim,
} from '../../storage/market-idempotency-queries.ts';

export interface IdempotentRequest {
  companyId: number;
  key: string;
  fingerprint: string;
  now: Date;
}

export interface IdempotentAnswer {
  body: unknown;
  /** true when this is the stored answer of an earlier request */
  replayed: boolean;
}

/**
 * Runs `create` once per key and window; every request with the key gets its answer. A unique
 * index refusing a drawn value (track code, locker codes) reruns the whole transaction.
 */
export function idempotent(
  uow: UnitOfWork,
  req: IdempotentRequest,
  create: (tx: Tx) => Promise<unknown>,
): Promise<IdempotentAnswer> {
  return uow.run(
    async (tx) => {
      const trx = tx.db;
      const stored = await claim(trx, req);
      if (stored) return { body: JSON.parse(stored), replayed: true };
      const body = await create(tx);
      await storeKeyAnswer(trx, req.companyId, req.key, {
        responseBody: JSON.stringify(body),
        completedAt: req.now.toISOString(),
      });
      return { body, replayed: false };
    },
    { redrawAttempts: 5 },
  );
}

/** Claims the key (undefined) or returns the answer stored under it; a reused key is refused. */
function claim(trx: Db, req: IdempotentRequest): Promise<string | undefined> {
  const fresh = (): FreshClaim => ({
    requestHash: req.fingerprint,
    responseStatus: null,
    responseBody: null,
    createdAt: req.now.toISOString(),
    completedAt: null,
  });
  const store: KeyStore = {
    insert: () => insertKeyClaim(trx, req.companyId, req.key, fresh()),
    read: () => findKeyClaim(trx, req.companyId, req.key),
    takeOver: (createdAt) => takeOverKeyClaim(trx, req.companyId, req.key, createdAt, fresh()),
  };
  return claimKey(
    store,
    req.fingerprint,
    req.now,
    IDEMPOTENCY_WINDOW_MS,
    'this Idempotency-Key was used with another request in the last hour',
  );
}
