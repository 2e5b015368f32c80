/**
 * Platform webhooks: the management's rows (one per company per type + subtype), and which
 * platform companies a locker order's event reaches: every active platform company
 * linked to the order's locker company, and the logistics and partner (marketplace) companies
 * of a parcel delivered by that order. The spec's webhooks (the PARCEL webhooks of the given
 * subtype) and the webhook subscriptions (issue 22) follow the same rule.
 */
import type { ExpressionBuilder, Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { WebhookSubtype, WebhookType } from '../domain/platform/enums.ts';
import type { PlatformDatabase } from './platform-schema.ts';

import type { Database, LockerOrderTable } from './schema.ts';
import type { OrderWebhookSubtype, WebhookTarget } from '../domain/order-events.ts';
import { prepared } from './prepared.ts';

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

// Run for every order event (events/record.ts): prepared, not built each time.
const orderWebhooks = prepared<[subtype: string, companyId: string, orderId: string], WebhookTarget>(
  3,
  (db: Db, subtype, companyId, orderId) =>
    db
      .selectFrom('platform_webhook as w')
      .innerJoin('platform_company as c', 'c.id', 'w.companyId')
      .select(['w.url', 'w.payloadTemplate', 'w.apiKey'])
      .where('w.type', '=', 'PARCEL')
      .where('w.subtype', '=', subtype)
      .where((eb) => reachedBy(eb as any, { id: orderId, companyId }))
      .orderBy('w.id'),
);

export function findOrderWebhooks(trx: Db, order: OrderRef, subtype: OrderWebhookSubtype): Promise<WebhookTarget[]> {
  return orderWebhooks(trx, subtype, order.companyId, order.id);
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

/** The parcels a locker order delivers, with the companies (logistics, partner) each belongs to. */
export function parcelsOfOrder(trx: Db, orderId: string) {
  return trx
    .selectFrom('parcel')
    .select(['id', 'trackCode', 'companyId', 'partnerCompanyId'])
    .where('postomatOrderId', '=', orderId)
    .orderBy('id')
    .execute();
}

/** The columns a webhook is shown with (all of them). */
const WEBHOOK_COLUMNS = [
  'id',
  'type',
  'subtype',
  'url',
  'payloadTemplate',
  'apiKey',
  'method',
  'companyId',
  'createdAt',
  'updatedAt',
] as const;

/** The company's webhook of this type and subtype, other than `exceptId`, if any. */
export function findWebhookOfKind(
  db: Db,
  companyId: number,
  type: WebhookType,
  subtype: WebhookSubtype | null,
  exceptId?: number,
) {
  let q = db.selectFrom('platform_webhook').select('id').where('companyId', '=', companyId).where('type', '=', type);
  q = subtype === null ? q.where('subtype', 'is', null) : q.where('subtype', '=', subtype);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return q.executeTakeFirst();
}

export function insertWebhook(db: Db, webhook: Insertable<PlatformDatabase['platform_webhook']>) {
  return db.insertInto('platform_webhook').values(webhook).returning(WEBHOOK_COLUMNS).executeTakeFirstOrThrow();
}

export function findWebhook(db: Db, id: number) {
  return db.selectFrom('platform_webhook').select(WEBHOOK_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function updateWebhookRow(db: Db, id: number, changes: Updateable<PlatformDatabase['platform_webhook']>) {
  return db
    .updateTable('platform_webhook')
    .set(changes)
    .where('id', '=', id)
    .returning(WEBHOOK_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A company's webhooks, newest first, and how many it has. */
export async function pageOfWebhooks(db: Db, companyId: number, page?: { limit: number; offset: number }) {
  const base = db.selectFrom('platform_webhook').where('companyId', '=', companyId);
  let q = base.select(WEBHOOK_COLUMNS).orderBy('id', 'desc');
  if (page) q = q.limit(page.limit).offset(page.offset);
  const [total, data] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q.execute(),
  ]);
  return { total: Number(total.n), data };
}

export async function deleteWebhookRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('platform_webhook').where('id', '=', id).execute();
}
