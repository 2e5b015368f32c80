/**
 * A locker's own reports from the field (`locker_health`, `locker_self_test`): the last one of
 * each kind per locker, replaced by the next. Their reading and alarms: sync/field-reports.ts.
 */
import type { Db } from './database.ts';

export type LockerReportKind = 'locker_health' | 'locker_self_test';

/** The report as stored: its JSON, the device's time (kept no later than the cloud's), and when it arrived. */
export interface StoredReportRow {
  report: string;
  at: string;
  receivedAt: string;
}

export async function replaceReport(
  db: Db,
  table: LockerReportKind,
  postomatId: string,
  row: StoredReportRow,
): Promise<void> {
  await db
    .insertInto(table)
    .values({ postomatId, ...row })
    .onConflict((oc) => oc.column('postomatId').doUpdateSet(row))
    .execute();
}

export function reportOf(db: Db, table: LockerReportKind, postomatId: string) {
  return db
    .selectFrom(table)
    .select(['report', 'at', 'receivedAt'])
    .where('postomatId', '=', postomatId)
    .executeTakeFirst();
}

/** The last health of every locker that ever sent one, by locker id. */
export function healthReports(db: Db, limit: number) {
  return db
    .selectFrom('locker_health')
    .select(['postomatId', 'report', 'receivedAt'])
    .orderBy('postomatId')
    .limit(limit)
    .execute();
}
