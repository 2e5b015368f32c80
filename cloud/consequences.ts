/**
 * The unit of work of this cloud, wired to what sync/ and events/ record for a change: the
 * one place that knows both the operations and the adapters that implement their ports.
 */
import type { Db } from './storage/database.ts';
import { UnitOfWork, type ChangeSignals } from './services/unit-of-work.ts';
import { recordLockerChange } from './storage/locker-sync-queries.ts';
import { recordChangeSms, recordDropOffSms, recordTransitionEvents } from './events/record.ts';
import { eventTypeForStatus, recordIntegratorEvent } from './webhooks/record.ts';
import type { WebhookEventType } from './webhooks/schemas.ts';
import { recordPlatformEvents } from './webhooks/platform-record.ts';
import type { PublishLeases } from './sync/publish-claim.ts';

/**
 * `leases`: those of this process's sync publisher, when it has one: a change then takes its
 * locker's publishing lease in its own transaction (sync/publish-claim.ts).
 */
export function createUnitOfWork(db: Db, signals?: ChangeSignals, leases?: PublishLeases): UnitOfWork {
  return new UnitOfWork(
    db,
    {
      lockerChange: (tx, postomatId, orderId) => recordLockerChange(tx, postomatId, orderId, leases?.next()),
      // The spec's events, then the subscriptions' (issue 22), the Locker API company's and the
      // platform companies': all in the change's transaction.
      orderEvents: async (tx, order, to, at, audience) => {
        const type = eventTypeForStatus(to, order.kind);
        return (
          (await recordTransitionEvents(tx, order, to, at, audience)) +
          (type ? await recordIntegratorEvent(tx, order, type, at, audience.lockerSubscriptions) : 0) +
          (await recordPlatformEvents(tx, order, to, at, audience.anyPlatformSubscription))
        );
      },
      integratorEvent: async (tx, order, type, at, known) =>
        (await recordIntegratorEvent(tx, order, type as WebhookEventType, at, known?.lockerSubscriptions)) +
        (await recordChangeSms(tx, order, type, at)) +
        (type === 'order.created' ? await recordDropOffSms(tx, order, at) : 0),
    },
    signals,
  );
}
