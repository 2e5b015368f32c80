/**
 * The records a parcel or cargo item points at, read to check them and to copy their
 * columns (client code and company, cargo kind, paid state, search text), and whether a
 * user may act on a company's items.
 */
import type { Db } from './database.ts';

export function findWarehousePickupFlag(db: Db, id: number) {
  return db.selectFrom('warehouse').select(['id', 'isPickupPoint']).where('id', '=', id).executeTakeFirst();
}

export function findCompanyTitle(db: Db, id: number) {
  return db.selectFrom('platform_company').select(['id', 'title']).where('id', '=', id).executeTakeFirst();
}

/** The company's title; throws when there is none. */
export function getCompanyTitle(db: Db, id: number) {
  return db.selectFrom('platform_company').select('title').where('id', '=', id).executeTakeFirstOrThrow();
}

export function findCompanyId(db: Db, id: number) {
  return db.selectFrom('platform_company').select('id').where('id', '=', id).executeTakeFirst();
}

export function findClientCode(db: Db, id: number) {
  return db.selectFrom('platform_client').select(['id', 'companyId', 'code']).where('id', '=', id).executeTakeFirst();
}

export function findClientCompanyId(db: Db, id: number) {
  return db.selectFrom('platform_client').select('companyId').where('id', '=', id).executeTakeFirst();
}

export function findSupplierId(db: Db, id: number) {
  return db.selectFrom('supplier').select('id').where('id', '=', id).executeTakeFirst();
}

export function findCargoKind(db: Db, id: number) {
  return db.selectFrom('cargo_type').select(['id', 'type']).where('id', '=', id).executeTakeFirst();
}

export function findPlatformCityId(db: Db, id: number) {
  return db.selectFrom('platform_city').select('id').where('id', '=', id).executeTakeFirst();
}

export function findPaymentOrderPaid(db: Db, id: number) {
  return db.selectFrom('payment_order').select(['id', 'isPaid']).where('id', '=', id).executeTakeFirst();
}

/** The code names of the company, oldest first, with the cargo type each is for. */
export function codeNamesOfCompany(db: Db, companyId: number) {
  return db
    .selectFrom('company_code')
    .select(['title', 'cargoTypeId'])
    .where('companyId', '=', companyId)
    .orderBy('id')
    .execute();
}

/** Any locker, active or not. */
export function findPostomatId(db: Db, id: string) {
  return db.selectFrom('postomat').select('id').where('id', '=', id).executeTakeFirst();
}

export function findActivePickupPointId(db: Db, id: number) {
  return db
    .selectFrom('warehouse')
    .select('id')
    .where('id', '=', id)
    .where('isPickupPoint', '=', 1)
    .where('isActive', '=', 1)
    .executeTakeFirst();
}

export function findActor(db: Db, userId: number) {
  return db
    .selectFrom('platform_user')
    .select(['id', 'companyId', 'isActive'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Whether `companyId` works with `partnerId` (a partnership row), as a row or undefined. */
export function findPartnership(db: Db, companyId: number, partnerId: number) {
  return db
    .selectFrom('company_partnership')
    .select('companyId')
    .where('companyId', '=', companyId)
    .where('partnerId', '=', partnerId)
    .executeTakeFirst();
}
