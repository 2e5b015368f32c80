/**
 * Which platform webhooks a locker order's event reaches: the PARCEL webhooks of the given
 * subtype of every active platform company linked to the order's locker company, and of the
 * logistics and partner (marketplace) companies of a parcel delivered by that order.
 */
import type { Db } from './database.ts';
import type { LockerOrderTable } from './schema.ts';
import type { OrderWebhookSubtype, WebhookTarget } from '../domain/order-events.ts';

export function findOrderWebhooks(trx: Db, order: Pick<LockerOrderTable, 'id' | 'companyId'>, subtype: OrderWebhookSubtype): Promise<WebhookTarget[]> {
  return trx
    .selectFrom('platform_webhook as w')
    .innerJoin('platform_company as c', 'c.id', 'w.companyId')
    .select(['w.url', 'w.payloadTemplate', 'w.apiKey'])
    .where('w.type', '=', 'PARCEL')
    .where('w.subtype', '=', subtype)
    .where('c.isActive', '=', 1)
    .where((eb) =>
      eb.or([
        eb('c.lockerCompanyId', '=', order.companyId),
        eb('w.companyId', 'in', eb.selectFrom('parcel').select('companyId').where('postomatOrderId', '=', order.id)),
        eb('w.companyId', 'in', eb.selectFrom('parcel').select('partnerCompanyId').where('postomatOrderId', '=', order.id).where('partnerCompanyId', 'is not', null)),
      ]),
    )
    .orderBy('w.id')
    .execute();
}
