/**
 * Claiming an Idempotency-Key, whichever table keeps them (the marketplace's, the Locker
 * API's): a unique insert claims it; otherwise the stored row answers (the same request), refuses
 * (another request), or, past its window, is taken over unless a concurrent request took it first.
 * Run inside the transaction that does the work and stores its answer, so a claim is never
 * visible without its answer.
 */
import { DomainError } from '../domain/errors.ts';
import { keyUse } from '../domain/platform/market-idempotency.ts';

export interface KeyRow {
  createdAt: string;
  requestHash: string | null;
  responseBody: string | null;
}

/** One key in one table. */
export interface KeyStore {
  /** inserts a fresh claim; false when the key is on record */
  insert(): Promise<boolean>;
  read(): Promise<KeyRow | undefined>;
  /** replaces the claim made at `createdAt` with a fresh one; false when someone else did */
  takeOver(createdAt: string): Promise<boolean>;
}

/** Undefined: the key is ours, do the work. A string: the stored answer of the same request. */
export async function claimKey(
  store: KeyStore,
  fingerprint: string,
  now: Date,
  windowMs: number,
  reused: string,
): Promise<string | undefined> {
  for (;;) {
    if (await store.insert()) return undefined;
    const row = await store.read();
    if (!row) continue; // pruned in between: claim it afresh
    const use = keyUse(row, fingerprint, now, windowMs);
    if (use === 'REUSED') throw new DomainError('IDEMPOTENCY_KEY_REUSED', reused);
    if (use === 'REPLAY') {
      if (row.responseBody === null) throw new Error('an idempotency key is claimed without an answer');
      return row.responseBody;
    }
    if (await store.takeOver(row.createdAt)) return undefined;
  }
}
