/**
 * Locker access of a platform company: the Locker API company it acts as, when the operator
 * has switched access on and that locker company is active. Orders it creates are that
 * company's ordinary orders (same codes, balance, counters, events).
 */
import type { Db } from '../../storage/database.ts';

export async function lockerCompanyOf(db: Db, platformCompanyId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('platform_company as p')
    .innerJoin('locker_company as l', 'l.id', 'p.lockerCompanyId')
    .select('l.id')
    .where('p.id', '=', platformCompanyId)
    .where('p.lockerAccess', '=', 1)
    .where('l.isActive', '=', 1)
    .executeTakeFirst();
  return row?.id;
}
