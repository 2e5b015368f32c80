/**
 * Alarms the operator must look at, per locker (migration 016): raised by the cloud's locker
 * link, listed by `locker status` and `locker alarms`, resolved by the operator (`locker alarm
 * resolve`) or, for a cell map that matches again, by the next cells report. Their rows:
 * storage/locker-alarm-queries.ts.
 */
import type { Db } from '../storage/database.ts';
import { openStateAlarm, raiseAlarm, updateAlarmDetail } from '../storage/locker-alarm-queries.ts';
import type { LockerAlarmKind } from './types.ts';

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
  if (open) await updateAlarmDetail(db, open.id, detail, at);
  else await raiseAlarm(db, { postomatId, kind, detail }, at);
  return true;
}
