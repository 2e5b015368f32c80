import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { autoId, raw } from './types.ts';

/**
 * Webhooks integrators can trust (issue 22): a Locker API company's subscriptions, the events
 * its orders cause (kept for listing and replay), one delivery per event and subscription
 * (claimed under a lease like the outbox, retried with backoff, then dead-lettered) and every
 * attempt of a delivery.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('webhook_subscription')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('companyId', 'text', (c) => c.notNull().references('locker_company.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('eventTypes', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previousSecret', 'text')
    .addColumn('previousSecretUntil', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addColumn('deletedAt', 'text')
    .execute();
  await raw(db, 'create index webhook_subscription_company on webhook_subscription ("companyId", "deletedAt")');

  // `seq` orders the event list and makes its cursor; `id` is what integrators see.
  await autoId(db.schema.createTable('webhook_event'), dialect)
    .addColumn('eventId', 'text', (c) => c.notNull().unique())
    .addColumn('companyId', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('orderId', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await raw(db, 'create index webhook_event_company on webhook_event ("companyId", id)');
  await raw(db, 'create index webhook_event_created on webhook_event ("createdAt")');

  await db.schema
    .createTable('webhook_delivery')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('eventId', 'text', (c) => c.notNull())
    .addColumn('subscriptionId', 'text', (c) => c.notNull().references('webhook_subscription.id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('nextAttemptAt', 'text', (c) => c.notNull())
    .addColumn('claimedBy', 'text')
    .addColumn('claimedUntil', 'text')
    .addColumn('lastStatus', 'integer')
    .addColumn('lastError', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('finishedAt', 'text')
    .execute();
  await raw(db, 'create index webhook_delivery_due on webhook_delivery (state, "nextAttemptAt")');
  await raw(db, 'create index webhook_delivery_event on webhook_delivery ("eventId")');

  await db.schema
    .createTable('webhook_attempt')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('deliveryId', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('httpStatus', 'integer')
    .addColumn('error', 'text')
    .addColumn('latencyMs', 'integer')
    .addColumn('nextAttemptAt', 'text')
    .execute();
  await raw(db, 'create index webhook_attempt_delivery on webhook_attempt ("deliveryId", attempt)');
}
