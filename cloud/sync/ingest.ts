/**
 * Events from lockers, applied exactly once: the event's row (keyed by locker and event id) is
 * inserted in the same transaction as the status change and everything it causes (statuses
 * history, storage period, counters, outbound events, sync change), so a redelivered event
 * finds its row and is only acknowledged again.
 */
import type { LockerEvent } from '../../shared/mqtt/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { decideLockerEvent, eventDetail } from '../domain/locker-sync.ts';
import { DomainError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import { isUniqueViolation } from '../storage/sql-errors.ts';
import { transitionOrder } from '../services/order-transitions.ts';
import type { UnitOfWork } from '../services/unit-of-work.ts';
import type { LockerEventTable } from './types.ts';

export interface IngestDeps {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
}

/** `ack`: done (applied, stored, rejected or seen before); `wait`: not yet, the agent sends it again. */
export type IngestResult = 'ack' | 'wait';

export async function ingestEvent(deps: IngestDeps, lockerId: string, event: LockerEvent): Promise<IngestResult> {
  const { db, clock, logger } = deps;
  const seen = await db.selectFrom('locker_event').select('outcome').where('postomatId', '=', lockerId).where('eventId', '=', event.eventId).executeTakeFirst();
  if (seen) return 'ack';

  const order = event.orderId
    ? await db
        .selectFrom('locker_order as o')
        .leftJoin('order_status as s', 's.id', 'o.currentStatusId')
        .select(['o.id', 'o.postomatId', 'o.status', 'o.createdAt', 's.createdAt as statusAt'])
        .where('o.id', '=', event.orderId)
        .executeTakeFirst()
    : undefined;
  // The agent names a cell by its number at this locker (docs/field-technicians.md).
  const cell =
    event.type === 'PLACED' && event.cellId && /^[1-9]\d{0,8}$/.test(event.cellId)
      ? await db.selectFrom('cell').select('id').where('postomatId', '=', lockerId).where('number', '=', Number(event.cellId)).executeTakeFirst()
      : undefined;
  const decision = decideLockerEvent({ type: event.type, orderId: event.orderId, cellKnown: cell !== undefined, order, lockerId });
  const log = { lockerId, eventId: event.eventId, type: event.type, orderId: event.orderId ?? null };
  if (decision.action === 'wait') {
    logger.info('locker event not applicable yet: left for the agent to send again', { ...log, reason: decision.reason });
    return 'wait';
  }

  const now = clock.now();
  const row: LockerEventTable = {
    postomatId: lockerId,
    eventId: event.eventId,
    seq: event.seq,
    type: event.type,
    orderId: event.orderId ?? null,
    cellId: event.cellId ?? null,
    detail: eventDetail(event),
    at: event.at,
    receivedAt: now.toISOString(),
    outcome: decision.action === 'apply' ? 'APPLIED' : decision.action === 'store' ? 'STORED' : 'REJECTED',
    note: decision.action === 'reject' ? decision.reason : null,
  };
  try {
    await deps.uow.run(async (tx) => {
      await tx.db.insertInto('locker_event').values(row).execute();
      if (decision.action === 'apply') {
        await transitionOrder(tx, { orderId: order!.id, to: decision.to, at: eventTime(event.at, order!.statusAt ?? order!.createdAt, now), cellId: cell?.id });
      }
    });
  } catch (err) {
    if (isUniqueViolation(err)) return 'ack'; // a copy of the same event got in first
    if (!(err instanceof DomainError)) throw err;
    // The order moved under us (e.g. staff settled it by hand meanwhile): never applied.
    await recordRejected(db, { ...row, outcome: 'REJECTED', note: err.message });
    logger.warn('locker event rejected', { ...log, reason: err.message });
    return 'ack';
  }
  if (decision.action === 'reject') logger.warn('locker event rejected', { ...log, reason: decision.reason });
  else logger.info(decision.action === 'apply' ? 'locker event applied' : 'locker event stored', log);
  return 'ack';
}

async function recordRejected(db: Db, row: LockerEventTable): Promise<void> {
  await db.insertInto('locker_event').values(row).onConflict((oc) => oc.columns(['postomatId', 'eventId']).doNothing()).execute();
}

/**
 * When it happened, by the locker's clock (a placement recorded offline counts from the real
 * placement), kept between the order's current status and now: a locker clock running ahead
 * cannot push the storage period into the future, nor one running behind put a step before
 * the one it follows.
 */
export function eventTime(at: string, currentStatusAt: string, now: Date): Date {
  const t = Math.min(Date.parse(at), now.getTime());
  return new Date(Math.max(t, Date.parse(currentStatusAt)));
}
