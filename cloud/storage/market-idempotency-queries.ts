/**
 * The marketplace's Idempotency-Key rows (POST /parcel/create): a claim by unique insert, the
 * row read back, a claim taken over past its window, and the answer stored under the key.
 * Each runs in the transaction that creates the parcel (services/platform/market-idempotency.ts).
 */
import type { Db } from './database.ts';

export interface FreshClaim {
  requestHash: string;
  responseStatus: null;
  responseBody: null;
  createdAt: string;
  completedAt: null;
}

/** Claims the key; false when it is on record already. */
export async function insertKeyClaim(db: Db, companyId: number, key: string, claim: FreshClaim): Promise<boolean> {
  const r = await db
    .insertInto('market_idempotency')
    .values({ companyId, key, ...claim })
    .onConflict((oc) => oc.columns(['companyId', 'key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function findKeyClaim(db: Db, companyId: number, key: string) {
  return db
    .selectFrom('market_idempotency')
    .selectAll()
    .where('companyId', '=', companyId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Replaces the claim made at `createdAt` with a fresh one; false when someone else did first. */
export async function takeOverKeyClaim(
  db: Db,
  companyId: number,
  key: string,
  createdAt: string,
  claim: FreshClaim,
): Promise<boolean> {
  const r = await db
    .updateTable('market_idempotency')
    .set(claim)
    .where('companyId', '=', companyId)
    .where('key', '=', key)
    .where('createdAt', '=', createdAt)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function storeKeyAnswer(
  db: Db,
  companyId: number,
  key: string,
  answer: { responseBody: string; completedAt: string },
): Promise<void> {
  await db
    .updateTable('market_idempotency')
    .set({ responseStatus: 200, responseBody: answer.responseBody, completedAt: answer.completedAt })
    .where('companyId', '=', companyId)
    .where('key', '=', key)
    .execute();
}
