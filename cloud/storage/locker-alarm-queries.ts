/**
 * The operator's alarms per locker (migration 016, `locker_alarm`): raised by the locker link
 * (sync/alarms.ts keeps the rule of a state alarm), listed and resolved by the operator, pruned
 * once resolved (retention-queries.ts).
 */
import type { Db } from './database.ts';
import { newId } from './ids.ts';
import type { LockerAlarmKind, LockerAlarmTable } from './locker-link-schema.ts';

export interface NewAlarm {
  postomatId: string;
  kind: LockerAlarmKind;
  eventId?: string | null;
  orderId?: string | null;
  cellId?: string | null;
  detail: string;
}

/** One alarm per event however often it is raised (a copy handled by another process finds it). */
export async function raiseAlarm(db: Db, alarm: NewAlarm, at: Date): Promise<void> {
  await db
    .insertInto('locker_alarm')
    .values({
      id: newId(),
      postomatId: alarm.postomatId,
      kind: alarm.kind,
      eventId: alarm.eventId ?? null,
      orderId: alarm.orderId ?? null,
      cellId: alarm.cellId ?? null,
      detail: alarm.detail,
      raisedAt: at.toISOString(),
      resolvedAt: null,
      resolution: null,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The open alarm of a kind that is a state of the locker (no event): its id and detail. */
export function openStateAlarm(db: Db, postomatId: string, kind: LockerAlarmKind) {
  return db
    .selectFrom('locker_alarm')
    .select(['id', 'detail'])
    .where('postomatId', '=', postomatId)
    .where('kind', '=', kind)
    .where('eventId', 'is', null)
    .where('resolvedAt', 'is', null)
    .executeTakeFirst();
}

/** An open state alarm brought up to date: raised again now, with its new detail. */
export async function updateAlarmDetail(db: Db, id: string, detail: string, at: Date): Promise<void> {
  await db.updateTable('locker_alarm').set({ detail, raisedAt: at.toISOString() }).where('id', '=', id).execute();
}

/** Resolves the open state alarm of a kind, if any; true when there was one. */
export async function clearStateAlarm(
  db: Db,
  postomatId: string,
  kind: LockerAlarmKind,
  resolution: string,
  at: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('locker_alarm')
    .set({ resolvedAt: at.toISOString(), resolution })
    .where('postomatId', '=', postomatId)
    .where('kind', '=', kind)
    .where('eventId', 'is', null)
    .where('resolvedAt', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Open alarms, oldest first: of one locker, or of every locker. */
export async function openAlarms(db: Db, postomatId?: string, limit = 100): Promise<LockerAlarmTable[]> {
  let q = db.selectFrom('locker_alarm').selectAll().where('resolvedAt', 'is', null);
  if (postomatId) q = q.where('postomatId', '=', postomatId);
  return (await q.orderBy('raisedAt').orderBy('id').limit(limit).execute()) as LockerAlarmTable[];
}

/** The operator dealt with it; false when there is no such open alarm. */
export async function resolveAlarm(db: Db, id: string, resolution: string, at: Date): Promise<boolean> {
  const res = await db
    .updateTable('locker_alarm')
    .set({ resolvedAt: at.toISOString(), resolution })
    .where('id', '=', id)
    .where('resolvedAt', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Open alarms per kind over every locker, for metrics gauges. */
export async function openAlarmCounts(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('locker_alarm')
    .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
    .where('resolvedAt', 'is', null)
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
}
