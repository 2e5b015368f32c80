/**
 * Messages from lockers, one locker at a time in arrival order (a pickup is never looked at
 * before the placement it follows), different lockers side by side. Every message is
 * validated; what does not parse is logged (topic and the failing fields, never the payload,
 * which can hold codes) and dropped.
 */
import type { z } from 'zod';
import {
  CellsMessage,
  ConnectionMessage,
  CONTRACT_VERSION,
  HealthMessage,
  SelfTestMessage,
  LockerEvent,
  ResponseMessage,
  parseLockerTopic,
  topics,
  type TopicName,
} from '../../shared/mqtt/index.ts';
import { decodeMessage } from '../../shared/mqtt/link.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import type { UnitOfWork } from '../services/unit-of-work.ts';
import { checkCellMap } from './cell-map.ts';
import { recordSelfTest } from './field-reports.ts';
import { HealthWrites } from './health-writes.ts';
import { recordResponse } from '../storage/locker-command-queries.ts';
import { ingestEvent, type IngestOutcome } from './ingest.ts';
import { lockerExists, recordCells, recordConnection } from './link-state.ts';
import type { SyncPublisher } from './publisher.ts';
import { syncForAnnouncement } from './sync-out.ts';

export interface InboundDeps {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
  publish(topic: string, body: unknown): Promise<boolean>;
  publisher: SyncPublisher;
  /** attempts before an event that keeps failing is set aside (ingest.ts) */
  eventMaxAttempts?: number;
  /** what each locker event came to (metrics) */
  onEvent?: (outcome: IngestOutcome) => void;
}

/** Messages of one locker waiting to be handled, at most. */
export const MAX_PENDING_PER_LOCKER = 256;

export class InboundMessages {
  private readonly queues = new Map<string, Promise<void>>();
  /** Lockers are never deleted: once seen in the database, a locker id stays known. */
  private readonly known = new Set<string>();
  /** messages of each locker received and not yet handled */
  private readonly pending = new Map<string, number>();
  private readonly dropped = new Map<string, number>();

  private readonly health: HealthWrites;

  constructor(private readonly deps: InboundDeps) {
    this.health = new HealthWrites({ db: deps.db, logger: deps.logger });
  }

  handle(topic: string, payload: Buffer): void {
    const t = parseLockerTopic(topic);
    if (!t) return;
    const { lockerId } = t;
    // A locker sending faster than its messages are handled (a hostile or broken agent) cannot
    // grow this queue without bound: what is beyond it is dropped. Nothing is lost that matters:
    // the agent sends an event again until it is acknowledged, and its state messages again on
    // its next change or reconnection.
    const pending = this.pending.get(lockerId) ?? 0;
    if (pending >= MAX_PENDING_PER_LOCKER) {
      const dropped = (this.dropped.get(lockerId) ?? 0) + 1;
      this.dropped.set(lockerId, dropped);
      if (dropped === 1)
        this.deps.logger.warn('locker sends faster than its messages are handled: dropping until it catches up', {
          lockerId,
          pending,
        });
      return;
    }
    this.pending.set(lockerId, pending + 1);
    const prev = this.queues.get(lockerId) ?? Promise.resolve();
    const next = prev
      .then(() => this.dispatch(lockerId, t.name, payload))
      .catch((err) => this.deps.logger.error('locker message failed', { lockerId, topic: t.name, err }))
      .finally(() => this.handled(lockerId));
    this.queues.set(lockerId, next);
    void next.finally(() => this.queues.get(lockerId) === next && this.queues.delete(lockerId));
  }

  private handled(lockerId: string): void {
    const left = (this.pending.get(lockerId) ?? 1) - 1;
    if (left > 0) return void this.pending.set(lockerId, left);
    this.pending.delete(lockerId);
    const dropped = this.dropped.get(lockerId);
    if (dropped) this.deps.logger.warn('locker caught up: messages were dropped meanwhile', { lockerId, dropped });
    this.dropped.delete(lockerId);
  }

  /** Resolves when every message received so far has been handled and written. */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()]);
    await this.health.flush();
  }

  private decode<T>(lockerId: string, name: TopicName, schema: z.ZodType<T>, payload: Buffer): T | undefined {
    // An empty retained payload is how a retained message is cleared: nothing to say.
    if (payload.length === 0) return undefined;
    const r = decodeMessage(schema, payload);
    if (r.ok) return r.value;
    this.deps.logger.warn('dropped a locker message that does not parse', { lockerId, topic: name, error: r.error });
    return undefined;
  }

  private async isKnown(lockerId: string): Promise<boolean> {
    if (this.known.has(lockerId)) return true;
    if (!(await lockerExists(this.deps.db, lockerId))) return false;
    this.known.add(lockerId);
    return true;
  }

  private async dispatch(lockerId: string, name: TopicName, payload: Buffer): Promise<void> {
    const { db, clock, logger } = this.deps;
    // Not a locker of this database (a broker shared with another deployment): not ours to
    // answer. Above all no ack, which would make that locker drop the event from its outbox.
    if (!(await this.isKnown(lockerId)))
      return logger.debug('message of an unknown locker ignored', { lockerId, topic: name });
    if (name === 'events') {
      const event = this.decode(lockerId, name, LockerEvent, payload);
      if (!event && payload.length) this.deps.onEvent?.('INVALID');
      if (event && (await ingestEvent(this.deps, lockerId, event)) === 'ack') {
        await this.deps.publish(topics.acks(lockerId), { v: CONTRACT_VERSION, eventId: event.eventId });
      }
    } else if (name === 'connection') {
      const msg = this.decode(lockerId, name, ConnectionMessage, payload);
      if (!msg || !(await recordConnection(db, lockerId, msg, clock.now()))) return;
      logger.info(msg.online ? 'locker online' : 'locker offline', {
        lockerId,
        syncVersion: msg.syncVersion,
        agentVersion: msg.agentVersion,
      });
      if (!msg.online) return;
      // It (re)connected: send what changed since the version it holds, and its pending commands.
      const sync = await syncForAnnouncement(db, lockerId, msg.syncVersion);
      if (sync) await this.deps.publish(topics.sync(lockerId), sync);
      await this.deps.publisher.sendCommands(lockerId);
    } else if (name === 'cells') {
      const msg = this.decode(lockerId, name, CellsMessage, payload);
      if (!msg) return;
      await recordCells(db, lockerId, msg, clock.now());
      await checkCellMap(
        db,
        logger,
        lockerId,
        msg.cells.map((c) => c.cellId),
        clock.now(),
      );
    } else if (name === 'responses') {
      const msg = this.decode(lockerId, name, ResponseMessage, payload);
      if (!msg) return;
      const known = await recordResponse(db, lockerId, msg, clock.now());
      const fields = {
        lockerId,
        commandId: msg.commandId,
        status: msg.status,
        ...(msg.status === 'error' && { error: msg.error }),
      };
      if (known) logger[msg.status === 'ok' ? 'info' : 'warn']('staff command answered', fields);
    } else if (name === 'health') {
      const msg = this.decode(lockerId, name, HealthMessage, payload);
      if (msg) await this.health.record(lockerId, msg, clock.now());
    } else if (name === 'selftest') {
      const msg = this.decode(lockerId, name, SelfTestMessage, payload);
      if (msg) await recordSelfTest(db, logger, lockerId, msg, clock.now());
    }
  }
}
