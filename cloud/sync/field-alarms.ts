/**
 * Locker events the operator must look at although no order is involved (issue 20): a door
 * opened without a command (TAMPER) and a door left open. Raised in the transaction that
 * stores the event, keyed by it, so a resent event never raises a second alarm.
 */
import type { Db } from '../storage/database.ts';
import { raiseAlarm } from '../storage/locker-alarm-queries.ts';
import type { LockerAlarmKind, LockerEventTable } from './types.ts';

const ALARM_OF: Partial<Record<string, { kind: LockerAlarmKind; detail: (cell: string) => string }>> = {
  TAMPER: {
    kind: 'TAMPER',
    detail: (cell) => `the door of cell ${cell} opened without a command (forced, or its latch let go)`,
  },
  DOOR_LEFT_OPEN: { kind: 'DOOR_LEFT_OPEN', detail: (cell) => `the door of cell ${cell} was left open` },
};

export async function alarmForFieldEvent(db: Db, row: LockerEventTable, now: Date): Promise<void> {
  const alarm = ALARM_OF[row.type];
  if (!alarm) return;
  const cell = row.cellId ?? '?';
  await raiseAlarm(
    db,
    {
      postomatId: row.postomatId,
      eventId: row.eventId,
      orderId: row.orderId,
      cellId: row.cellId,
      kind: alarm.kind,
      detail: alarm.detail(cell),
    },
    now,
  );
}
