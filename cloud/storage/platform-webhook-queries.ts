/**
 * Which platform companies a locker order's event reaches: every active platform company
 * linked to the order's locker company, and the logistics and partner (marketplace) companies
 * of a parcel delivered by that order. The spec's webhooks (the PARCEL webhooks of the given
 * subtype) and the webhook subscriptions (issue 22) follow the same rule.
 */
import type { ExpressionBuilder } from 'kysely';
import type { Db } from './database.ts';

import type { Database, LockerOrderTable } from './schema.ts';
import type { OrderWebhookSubtype, WebhookTarget } from '../domain/order-events.ts';

type OrderRef = Pick<LockerOrderTable, 'id' | 'companyId'>;

/** The rule, on `platform_company as c`. */
function reachedBy(eb: ExpressionBuilder<Database & { c: Database['platform_company'] }, 'c'>, order: OrderRef) {
  return eb.and([
    eb('c.isActive', '=', 1),
    eb.or([
      eb('c.lockerCompanyId', '=', order.companyId),
      eb('c.id', 'in', eb.selectFrom('parcel').select('companyId').where('postomatOrderId', '=', order.id)),
      eb(
        'c.id',
        'in',
        eb
          .selectFrom('parcel')
          .select('partnerCompanyId')
          .where('postomatOrderId', '=', order.id)
          .where('partnerCompanyId', 'is not', null),
      ),
    ]),
  ]);
}

export function findOrderWebhooks(trx: Db, order: OrderRef, subtype: OrderWebhookSubtype): Promise<WebhookTarget[]> {
  return trx
    .selectFrom('platform_webhook as w')
    .innerJoin('platform_company as c', 'c.id', 'w.companyId')
    .select(['w.url', 'w.payloadTemplate', 'w.apiKey'])
    .where('w.type', '=', 'PARCEL')
    .where('w.subtype', '=', subtype)
    .where((eb) => reachedBy(eb as any, order))
    .orderBy('w.id')
    .execute();
}

/** The ids of the platform companies the order's events reach. */
export async function findOrderPlatformCompanies(trx: Db, order: OrderRef): Promise<number[]> {
  const rows = await trx
    .selectFrom('platform_company as c')
    .select('c.id')
    .where((eb) => reachedBy(eb, order))
    .orderBy('c.id')
    .execute();
  return rows.map((r) => Number(r.id));
}
