/** Reads of the Locker API's keys. */
import type { Db } from './database.ts';

/** Who a key belongs to, by its hash; a key of an inactive company belongs to no one. */
export function callerOfKey(db: Db, keyHash: string) {
  return db
    .selectFrom('locker_api_key as k')
    .innerJoin('locker_company as c', 'c.id', 'k.companyId')
    .select(['k.id as keyId', 'k.companyId'])
    .where('k.keyHash', '=', keyHash)
    .where('c.isActive', '=', 1)
    .executeTakeFirst();
}
