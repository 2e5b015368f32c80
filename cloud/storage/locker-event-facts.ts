/**
 * What applying a locker's event needs to know before it decides, in one read where it can:
 * whether the event is on record already (a redelivery), whether earlier attempts at it are
 * counted (only then is there a count to clear), its order's state, and the cell the agent
 * named. On PostgreSQL each statement is a round trip: a door event read these in three and
 * cleared attempts in a fourth that almost never found any, of its sixteen.
 */
import type { Db } from './database.ts';
import { lockerEventOutcome, hasEventAttempts } from './locker-event-queries.ts';
import { orderForLockerEvent, orderWithEventFacts, type EventOrder } from './order-lookups.ts';
import { cellIdByNumber } from './cell-queries.ts';
import type { LockerEventOutcome } from './locker-link-schema.ts';

export interface LockerEventFacts {
  /** the event's outcome if it is on record: a copy of it came before */
  seen?: LockerEventOutcome;
  /** attempts at it are counted (locker_event_attempt) */
  attempted: boolean;
  order?: EventOrder;
  /** the id of the cell the agent named by number, when it named one and the locker has it */
  cellId?: string;
}

/**
 * The facts of `eventId` from `postomatId`, naming `orderId` and the cell `cellNumber` when
 * it does: one statement when the order exists (a door event's usual case), else one read each.
 */
export async function lockerEventFacts(
  db: Db,
  postomatId: string,
  eventId: string,
  orderId: string | undefined,
  cellNumber: number | undefined,
): Promise<LockerEventFacts> {
  if (orderId) {
    const [row] = await orderWithEventFacts(db, orderId, postomatId, eventId, cellNumber ?? null);
    if (row) {
      const { seen, attempted, cellId, ...order } = row;
      return { seen: seen ?? undefined, attempted: attempted != null, order, cellId: cellId ?? undefined };
    }
  }
  const [seen, attempted, order, cell] = await Promise.all([
    lockerEventOutcome(db, postomatId, eventId),
    hasEventAttempts(db, postomatId, eventId),
    orderId ? orderForLockerEvent(db, orderId) : undefined,
    cellNumber !== undefined ? cellIdByNumber(db, postomatId, cellNumber) : undefined,
  ]);
  return { seen: seen?.outcome, attempted, order, cellId: cell?.id };
}
