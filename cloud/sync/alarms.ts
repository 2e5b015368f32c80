/**
 * Alarms the operator must look at, per locker (migration 016): raised by the cloud's locker
 * link, listed by `locker status` and `locker alarms`, resolved by the operator (`locker alarm
 * resolve`) or, for a cell map that matches again, by the next cells report.
 */
import type { Db } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import type { LockerAlarmKind, LockerAlarmTable } from './types.ts';

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

/**
 * The open alarm of a kind that is a state of the locker rather than an event (its cell map):
 * raised, or its detail brought up to date; true when it is new or changed.
 */
export async function setStateAlarm(
  db: Db,
  postomatId: string,
  kind: LockerAlarmKind,
  detail: string,
  at: Date,
): Promise<boolean> {
  const open = await openStateAlarm(db, postomatId, kind);
  if (open?.detail === detail) return false;
  if (open)
    await db
      .updateTable('locker_alarm')
      .set({ detail, raisedAt: at.toISOString() })
      .where('id', '=', open.id)
      .execute();
  else await raiseAlarm(db, { postomatId, kind, detail }, at);
  return true;
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

function openStateAlarm(db: Db, postomatId: string, kind: LockerAlarmKind) {
  return db
    .selectFrom('locker_alarm')
    .select(['id', 'detail'])
    .where('postomatId', '=', postomatId)
    .where('kind', '=', kind)
    .where('eventId', 'is', null)
    .where('resolvedAt', 'is', null)
    .executeTakeFirst();
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
