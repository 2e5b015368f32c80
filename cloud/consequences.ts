/**
 * The unit of work of this cloud, wired to what sync/ and events/ record for a change: the
 * one place that knows both the operations and the adapters that implement their ports.
 */
import type { Db } from './storage/database.ts';
import { UnitOfWork, type ChangeSignals } from './services/unit-of-work.ts';
import { recordLockerChange } from './sync/changes.ts';
import { recordTransitionEvents } from './events/record.ts';

export function createUnitOfWork(db: Db, signals?: ChangeSignals): UnitOfWork {
  return new UnitOfWork(db, { lockerChange: recordLockerChange, orderEvents: recordTransitionEvents }, signals);
}
