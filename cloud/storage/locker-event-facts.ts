/**
 * What applying a locker's event needs to know before it decides, in one read where it can:
 * whether the event is on record already (a redelivery), whether earlier attempts at it are
 * counted (only then is there a count to clear), its order's state, and the cell the agent
 * named. On PostgreSQL each statement is a round trip: a door event read these in three and
 * cleared attempts in a fourth that almost never found any, of its sixteen.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { prepared } from './prepared.ts';
import { lockerEventOutcome, hasEventAttempts } from './locker-event-queries.ts';
import { orderForLockerEvent } from './order-lookups.ts';
import { cellIdByNumber } from './cell-queries.ts';
import type { LockerEventOutcome } from './locker-link-schema.ts';
import type { LockerOrderTable } from './schema.ts';

export interface EventOrder {
  id: string;
  postomatId: string;
  status: LockerOrderTable['status'];
  isActive: number;
  expiredAt: string | null;
  createdAt: string;
  statusAt: string | null;
}

export interface LockerEventFacts {
  /** the event's outcome if it is on record: a copy of it came before */
  seen?: LockerEventOutcome;
  /** attempts at it are counted (locker_event_attempt) */
  attempted: boolean;
  order?: EventOrder;
  /** the id of the cell the agent named by number, when it named one and the locker has it */
  cellId?: string;
}

type FactsRow = EventOrder & { seen: LockerEventOutcome | null; attempted: number | null; cellId: string | null };

const withOrder = prepared<[orderId: string, postomatId: string, eventId: string, cellNumber: number | null], FactsRow>(
  4,
  (db: Db, orderId, postomatId, eventId, cellNumber) =>
    db
      .selectFrom('locker_order as o')
      .leftJoin('order_status as s', 's.id', 'o.currentStatusId')
      .select((eb) => [
        'o.id',
        'o.postomatId',
        'o.status',
        'o.isActive',
        'o.expiredAt',
        'o.createdAt',
        's.createdAt as statusAt',
        eb
          .selectFrom('locker_event as e')
          .select('e.outcome')
          .where('e.postomatId', '=', postomatId)
          .where('e.eventId', '=', eventId)
          .as('seen'),
        eb
          .selectFrom('locker_event_attempt as a')
          .select(sql<number>`1`.as('one'))
          .where('a.postomatId', '=', postomatId)
          .where('a.eventId', '=', eventId)
          .as('attempted'),
        eb
          .selectFrom('cell as c')
          .select('c.id')
          .where('c.postomatId', '=', postomatId)
          .where('c.number', '=', cellNumber)
          .as('cellId'),
      ])
      .where('o.id', '=', orderId),
);

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
    const [row] = await withOrder(db, orderId, postomatId, eventId, cellNumber ?? null);
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
  return { seen: seen?.outcome, attempted, order: order as EventOrder | undefined, cellId: cell?.id };
}
