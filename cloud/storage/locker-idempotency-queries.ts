/**
 * The Locker API's Idempotency-Keys (issue 22), one row per company and key: claimed by a unique
 * insert, taken over past their window only by the request that read the claim, then given the
 * answer. The rules of claiming are services/idempotency-claim.ts's.
 */
import type { Db } from './database.ts';

export interface LockerKeyRef {
  companyId: string;
  key: string;
}

/** A claim not yet answered. */
export interface FreshClaim {
  requestHash: string;
  responseStatus: null;
  responseBody: null;
  createdAt: string;
}

/** True when the key was free and is now claimed; false when it is on record. */
export async function insertLockerKeyClaim(db: Db, ref: LockerKeyRef, claim: FreshClaim): Promise<boolean> {
  const r = await db
    .insertInto('locker_idempotency')
    .values({ companyId: ref.companyId, key: ref.key, ...claim })
    .onConflict((oc) => oc.columns(['companyId', 'key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function lockerKeyRow(db: Db, ref: LockerKeyRef) {
  return db
    .selectFrom('locker_idempotency')
    .selectAll()
    .where('companyId', '=', ref.companyId)
    .where('key', '=', ref.key)
    .executeTakeFirst();
}

/** Replaces the claim made at `createdAt`; false when another request replaced it first. */
export async function takeOverLockerKey(
  db: Db,
  ref: LockerKeyRef,
  createdAt: string,
  claim: FreshClaim,
): Promise<boolean> {
  const r = await db
    .updateTable('locker_idempotency')
    .set(claim)
    .where('companyId', '=', ref.companyId)
    .where('key', '=', ref.key)
    .where('createdAt', '=', createdAt)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The answer later requests with the key get back. */
export async function storeLockerKeyAnswer(db: Db, ref: LockerKeyRef, body: string): Promise<void> {
  await db
    .updateTable('locker_idempotency')
    .set({ responseStatus: 200, responseBody: body })
    .where('companyId', '=', ref.companyId)
    .where('key', '=', ref.key)
    .execute();
}
