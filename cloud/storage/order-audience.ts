/**
 * Who hears of an order's status change, read once for every recorder of its events
 * (consequences.ts): the Locker API company's notification address (the spec's event 1), the
 * recipient's phone (SMS), the company's live webhook subscriptions, and whether any platform
 * company subscribes at all or has a parcel webhook (the spec's platform webhooks), so that a
 * deployment without them reads nothing more. One statement instead of five: on PostgreSQL,
 * one round trip in the transaction of each door event instead of five.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { prepared } from './prepared.ts';
import { lockerSubscriptionsJson, parseLiveSubscriptions, type LiveSubscription } from './webhook-event-queries.ts';

export interface OrderAudience {
  notificationUrl: string | null;
  recipientPhone: string | null;
  /** the order's Locker API company's live subscriptions (at most SUBSCRIPTIONS_PER_COMPANY) */
  lockerSubscriptions: LiveSubscription[];
  anyPlatformSubscription: boolean;
  /** whether any platform company has a PARCEL webhook (storage/platform-webhook-queries.ts) */
  anyPlatformWebhook: boolean;
}

interface AudienceRow {
  notificationUrl: string | null;
  recipientPhone: string | null;
  /** JSON text on SQLite, parsed by the driver on PostgreSQL */
  lockerSubscriptions: string | LiveSubscription[] | null;
  platformSubscription: string | null;
  platformWebhook: string | number | null;
}

export async function orderAudienceOf(db: Db, order: { companyId: string; toUserId: string }): Promise<OrderAudience> {
  const [row] = await audience(db, order.companyId, order.toUserId);
  if (!row) throw new Error('order audience: no row');
  return {
    notificationUrl: row.notificationUrl,
    recipientPhone: row.recipientPhone,
    lockerSubscriptions: parseLiveSubscriptions(row.lockerSubscriptions),
    anyPlatformSubscription: row.platformSubscription != null,
    anyPlatformWebhook: row.platformWebhook != null,
  };
}

const audience = prepared<[companyId: string, recipientId: string], AudienceRow>(2, (db: Db, companyId, recipientId) =>
  db.selectNoFrom((eb) => [
    eb.selectFrom('locker_company').select('notificationUrl').where('id', '=', companyId).as('notificationUrl'),
    eb.selectFrom('recipient').select('phone').where('id', '=', recipientId).as('recipientPhone'),
    lockerSubscriptionsJson(db, companyId).as('lockerSubscriptions'),
    eb
      .selectFrom('webhook_subscription')
      .select('id')
      .where('ownerKind', '=', sql.lit('PLATFORM'))
      .where('deletedAt', 'is', null)
      .limit(1)
      .as('platformSubscription'),
    eb.selectFrom('platform_webhook').select('id').where('type', '=', sql.lit('PARCEL')).limit(1).as('platformWebhook'),
  ]),
);
