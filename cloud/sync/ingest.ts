/**
 * Events from lockers, applied exactly once: the event's row (keyed by locker and event id) is
 * inserted in the same transaction as the status change and everything it causes (statuses
 * history, storage period, counters, outbound events, sync change), so a redelivered event
 * finds its row and is only acknowledged again.
 *
 * None is retried silently for ever (docs/locker-sync.md): an order event the cloud will not
 * apply is REJECTED at once, one it cannot apply (an unexpected error, or a pickup whose
 * placement never comes) is counted and, after LOCKER_EVENT_MAX_ATTEMPTS, set aside as FAILED;
 * both are acknowledged, logged with the locker, order and cell, and raise an alarm. Only a
 * database that cannot answer leaves an event for the agent to send again without counting.
 */
import type { LockerEvent } from '../../shared/mqtt/index.ts';
import type { Clock } from '../../shared/clock.ts';
import {
  alarmsOperator,
  decideLockerEvent,
  DEFAULT_EVENT_MAX_ATTEMPTS,
  eventDetail,
  giveUpAfter,
} from '../domain/locker-sync.ts';
import { DomainError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import { lockerEventFacts } from '../storage/locker-event-facts.ts';
import {
  clearEventAttempts,
  countEventAttempt,
  insertLockerEvent,
  insertLockerEventOnce,
  placementWasRefused,
} from '../storage/locker-event-queries.ts';
import { isTransientDbError, isUniqueViolation } from '../storage/sql-errors.ts';
import { transitionOrder } from '../services/order-transitions.ts';
import type { UnitOfWork } from '../services/unit-of-work.ts';
import { raiseAlarm } from '../storage/locker-alarm-queries.ts';
import { alarmForFieldEvent } from './field-alarms.ts';
import type { LockerAlarmKind, LockerEventOutcome, LockerEventTable } from './types.ts';

export interface IngestDeps {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
  /** attempts before an event that keeps failing is set aside (DEFAULT_EVENT_MAX_ATTEMPTS when absent) */
  eventMaxAttempts?: number;
  /** what each event came to (metrics) */
  onEvent?: (outcome: IngestOutcome) => void;
}

/** What an event came to: its recorded outcome, or seen before, left for the agent to resend, or not parsable (inbound.ts). */
export type IngestOutcome = LockerEventOutcome | 'DUPLICATE' | 'DEFERRED' | 'INVALID';

/** `ack`: done (applied, stored, rejected, failed or seen before); `wait`: not yet, the agent sends it again. */
export type IngestResult = 'ack' | 'wait';

/** What is kept of an error in the database and the alarm: its kind and message, shortened. */
const describeError = (err: unknown) =>
  `${(err as Error)?.name ?? 'Error'}: ${String((err as Error)?.message ?? err)}`.slice(0, 300);

export async function ingestEvent(deps: IngestDeps, lockerId: string, event: LockerEvent): Promise<IngestResult> {
  try {
    return await ingestOnce(deps, lockerId, event);
  } catch (err) {
    const log = logFields(lockerId, event);
    if (isTransientDbError(err)) {
      deps.logger.warn('locker event deferred: the database cannot answer now; the agent sends it again', {
        ...log,
        err: describeError(err),
      });
      deps.onEvent?.('DEFERRED');
      return 'wait';
    }
    return countAttempt(deps, lockerId, event, describeError(err), err);
  }
}

const logFields = (lockerId: string, e: LockerEvent) => ({
  lockerId,
  eventId: e.eventId,
  type: e.type,
  orderId: e.orderId ?? null,
  cellId: e.cellId ?? null,
});

async function ingestOnce(deps: IngestDeps, lockerId: string, event: LockerEvent): Promise<IngestResult> {
  const { db, clock, logger } = deps;
  // The agent names a cell by its number at this locker (docs/field-technicians.md).
  const cellNumber =
    event.type === 'PLACED' && event.cellId && /^[1-9]\d{0,8}$/.test(event.cellId) ? Number(event.cellId) : undefined;
  const facts = await lockerEventFacts(db, lockerId, event.eventId, event.orderId, cellNumber);
  if (facts.seen) {
    deps.onEvent?.('DUPLICATE');
    return 'ack';
  }
  const { order, cellId } = facts;
  const placementRefused =
    (event.type === 'PICKED_UP' || event.type === 'SUBTRACTED') &&
    order?.status === 'CREATED' &&
    (await placementWasRefused(db, lockerId, order.id));
  const decision = decideLockerEvent({
    type: event.type,
    orderId: event.orderId,
    cellKnown: cellId !== undefined,
    order,
    lockerId,
    placementRefused,
  });
  const log = logFields(lockerId, event);
  if (decision.action === 'wait') {
    // Counted: the placement it waits for is ahead of it in the agent's outbox, so it is
    // applied, refused or set aside within a few rounds; a wait beyond that never ends.
    return countAttempt(deps, lockerId, event, `not applicable yet: ${decision.reason}`);
  }

  const now = clock.now();
  const row: LockerEventTable = {
    ...eventRow(lockerId, event, now),
    outcome: decision.action === 'apply' ? 'APPLIED' : decision.action === 'store' ? 'STORED' : 'REJECTED',
    note: decision.action === 'reject' ? decision.reason : null,
  };
  // A withdrawn order placed all the same: applied (the parcel is in the cell) but not live.
  const withdrawnPlaced =
    decision.action === 'apply' && event.type === 'PLACED' && order?.isActive === 0 && !order.expiredAt;
  try {
    await deps.uow.run(async (tx) => {
      await insertLockerEvent(tx.db, row);
      // Attempts counted after the read are left to retention: the event is on record now,
      // so a copy of it is a duplicate and never counts another attempt.
      if (facts.attempted) await clearEventAttempts(tx.db, lockerId, event.eventId);
      if (decision.action === 'apply') {
        await transitionOrder(tx, {
          orderId: order!.id,
          to: decision.to,
          at: eventTime(event.at, order!.statusAt ?? order!.createdAt, now),
          cellId,
        });
      }
      if (decision.action === 'reject') await alarmFor(tx.db, row, 'EVENT_REJECTED', now);
      if (decision.action === 'store') await alarmForFieldEvent(tx.db, row, now);
      if (withdrawnPlaced) {
        await raiseAlarm(
          tx.db,
          {
            ...alarmOf(row),
            kind: 'WITHDRAWN_ORDER_PLACED',
            detail:
              'a parcel was placed for an order that had been withdrawn (redirected): it is in the cell, but no longer in any list',
          },
          now,
        );
      }
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      deps.onEvent?.('DUPLICATE'); // a copy of the same event got in first
      return 'ack';
    }
    if (!(err instanceof DomainError)) throw err;
    // The order moved under us (e.g. staff settled it by hand meanwhile): never applied.
    const rejected = { ...row, outcome: 'REJECTED' as const, note: err.message };
    await db.transaction().execute(async (trx) => {
      await insertLockerEventOnce(trx, rejected);
      await clearEventAttempts(trx, lockerId, event.eventId);
      await alarmFor(trx, rejected, 'EVENT_REJECTED', now);
    });
    logger.warn('locker event rejected: acknowledged, never applied', { ...log, reason: err.message });
    deps.onEvent?.('REJECTED');
    return 'ack';
  }
  if (decision.action === 'reject')
    logger.warn('locker event rejected: acknowledged, never applied', { ...log, reason: decision.reason });
  else if (withdrawnPlaced) logger.warn('parcel placed for a withdrawn order: alarm raised', log);
  else logger.info(decision.action === 'apply' ? 'locker event applied' : 'locker event stored', log);
  deps.onEvent?.(row.outcome);
  return 'ack';
}

/**
 * One more attempt at an event the cloud could not apply. Below the limit: not acknowledged,
 * the agent sends it again. At the limit: recorded as FAILED with why, alarmed, acknowledged.
 */
async function countAttempt(
  deps: IngestDeps,
  lockerId: string,
  event: LockerEvent,
  why: string,
  err?: unknown,
): Promise<IngestResult> {
  const { db, clock, logger } = deps;
  const now = clock.now();
  const at = now.toISOString();
  const max = deps.eventMaxAttempts ?? DEFAULT_EVENT_MAX_ATTEMPTS;
  const attempts = await db.transaction().execute((trx) => countEventAttempt(trx, lockerId, event.eventId, at, why));
  const log = { ...logFields(lockerId, event), attempt: attempts, of: max, reason: why };
  if (!giveUpAfter(attempts, max)) {
    // A wait is the normal case of a pickup overtaking its placement; an error is not.
    if (err) logger.error('locker event failed: not acknowledged, the agent sends it again', { ...log, err });
    else logger.info('locker event not applicable yet: left for the agent to send again', log);
    deps.onEvent?.('DEFERRED');
    return 'wait';
  }
  const failed: LockerEventTable = {
    ...eventRow(lockerId, event, now),
    outcome: 'FAILED',
    note: `${max} attempts: ${why}`.slice(0, 400),
  };
  await db.transaction().execute(async (trx) => {
    await insertLockerEventOnce(trx, failed);
    await clearEventAttempts(trx, lockerId, event.eventId);
    if (alarmsOperator(event.type, 'FAILED')) await alarmFor(trx, failed, 'EVENT_FAILED', now);
  });
  logger.error('locker event set aside as FAILED: acknowledged so the agent stops sending it; alarm raised', log);
  deps.onEvent?.('FAILED');
  return 'ack';
}

function eventRow(lockerId: string, event: LockerEvent, now: Date): Omit<LockerEventTable, 'outcome' | 'note'> {
  return {
    postomatId: lockerId,
    eventId: event.eventId,
    seq: event.seq,
    type: event.type,
    orderId: event.orderId ?? null,
    cellId: event.cellId ?? null,
    detail: eventDetail(event),
    at: event.at,
    receivedAt: now.toISOString(),
  };
}

const alarmOf = (row: LockerEventTable) => ({
  postomatId: row.postomatId,
  eventId: row.eventId,
  orderId: row.orderId,
  cellId: row.cellId,
});

async function alarmFor(db: Db, row: LockerEventTable, kind: LockerAlarmKind, now: Date): Promise<void> {
  if (!alarmsOperator(row.type, row.outcome)) return;
  await raiseAlarm(
    db,
    {
      ...alarmOf(row),
      kind,
      detail: `${row.type} ${row.outcome === 'FAILED' ? 'could not be applied' : 'rejected'}: ${row.note ?? ''}`,
    },
    now,
  );
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
