/**
 * Who hears of an order's status change, read with the order itself by the change
 * (order-lookups.ts orderWithAudience) for every recorder of its events (consequences.ts): the
 * Locker API company's notification address (the spec's event 1), the recipient's phone (SMS),
 * the company's live webhook subscriptions, and whether any platform company subscribes at all
 * or has a parcel webhook (the spec's platform webhooks), so that a deployment without them
 * reads nothing more. Columns of the order's own read: on PostgreSQL no round trip of its own in
 * the transaction of each door event, where these took five, then one.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from './database.ts';
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

/** The audience's columns as a row carries them (prefixed: they sit beside the order's own). */
export interface AudienceColumns {
  audienceNotificationUrl: string | null;
  audienceRecipientPhone: string | null;
  /** JSON text on SQLite, parsed by the driver on PostgreSQL */
  audienceLockerSubscriptions: string | LiveSubscription[] | null;
  audiencePlatformSubscription: string | null;
  audiencePlatformWebhook: string | number | null;
}

/**
 * The audience as subqueries of a query whose row names the order's company and recipient in
 * the columns `refs` give (e.g. 'o.companyId', 'o.toUserId').
 */
export const audienceColumns = (
  db: Db,
  eb: ExpressionBuilder<any, any>,
  refs: { companyId: string; recipientId: string },
) => [
  eb
    .selectFrom('locker_company as ac')
    .select('ac.notificationUrl')
    .whereRef('ac.id', '=', refs.companyId)
    .as('audienceNotificationUrl'),
  eb
    .selectFrom('recipient as ar')
    .select('ar.phone')
    .whereRef('ar.id', '=', refs.recipientId)
    .as('audienceRecipientPhone'),
  lockerSubscriptionsJson(db, { ref: refs.companyId }).as('audienceLockerSubscriptions'),
  eb
    .selectFrom('webhook_subscription as ps')
    .select('ps.id')
    .where('ps.ownerKind', '=', sql.lit('PLATFORM'))
    .where('ps.deletedAt', 'is', null)
    .limit(1)
    .as('audiencePlatformSubscription'),
  eb
    .selectFrom('platform_webhook as pw')
    .select('pw.id')
    .where('pw.type', '=', sql.lit('PARCEL'))
    .limit(1)
    .as('audiencePlatformWebhook'),
];

/** Splits a row read with `audienceColumns` into the audience and the rest. */
export function audienceOfRow<R extends AudienceColumns>(
  row: R,
): { audience: OrderAudience; rest: Omit<R, keyof AudienceColumns> } {
  const {
    audienceNotificationUrl,
    audienceRecipientPhone,
    audienceLockerSubscriptions,
    audiencePlatformSubscription,
    audiencePlatformWebhook,
    ...rest
  } = row;
  return {
    audience: {
      notificationUrl: audienceNotificationUrl,
      recipientPhone: audienceRecipientPhone,
      lockerSubscriptions: parseLiveSubscriptions(audienceLockerSubscriptions),
      anyPlatformSubscription: audiencePlatformSubscription != null,
      anyPlatformWebhook: audiencePlatformWebhook != null,
    },
    rest,
  };
}
