/**
 * Platform companies written: the company row, its locker access, and what it carries: code
 * names, cargo and delivery types, partnerships.
 */
import type { Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { PlatformDatabase } from './platform-schema.ts';

export function insertPlatformCompany(db: Db, company: Insertable<PlatformDatabase['platform_company']>) {
  return db.insertInto('platform_company').values(company).returningAll().executeTakeFirstOrThrow();
}

export function updatePlatformCompanyRow(
  db: Db,
  id: number,
  changes: Updateable<PlatformDatabase['platform_company']>,
) {
  return db.updateTable('platform_company').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Adds the code name, and the company's link to its cargo type unless it has it. */
export async function insertCompanyCode(
  db: Db,
  code: { companyId: number; title: string; cargoTypeId: number; at: string },
) {
  const { companyId, title, cargoTypeId, at } = code;
  const row = await db
    .insertInto('company_code')
    .values({ companyId, title, cargoTypeId, createdAt: at, updatedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto('company_cargo_type')
    .values({ companyId, cargoTypeId })
    .onConflict((oc) => oc.columns(['companyId', 'cargoTypeId']).doNothing())
    .execute();
  return row;
}

/** Deletes the company's code name; false when it has none with this id. */
export async function deleteCompanyCode(db: Db, companyId: number, codeId: number): Promise<boolean> {
  const res = await db
    .deleteFrom('company_code')
    .where('id', '=', codeId)
    .where('companyId', '=', companyId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

export async function replaceCompanyCargoTypes(db: Db, companyId: number, cargoTypeIds: number[]): Promise<void> {
  await db.deleteFrom('company_cargo_type').where('companyId', '=', companyId).execute();
  if (cargoTypeIds.length)
    await db
      .insertInto('company_cargo_type')
      .values(cargoTypeIds.map((cargoTypeId) => ({ companyId, cargoTypeId })))
      .execute();
}

export async function replaceCompanyDeliveryTypes(db: Db, companyId: number, deliveryTypeIds: number[]): Promise<void> {
  await db.deleteFrom('company_delivery_type').where('companyId', '=', companyId).execute();
  if (deliveryTypeIds.length)
    await db
      .insertInto('company_delivery_type')
      .values(deliveryTypeIds.map((deliveryTypeId) => ({ companyId, deliveryTypeId })))
      .execute();
}

export async function insertPartnership(db: Db, companyId: number, partnerId: number, at: string): Promise<void> {
  await db
    .insertInto('company_partnership')
    .values({ companyId, partnerId, createdAt: at })
    .onConflict((oc) => oc.columns(['companyId', 'partnerId']).doNothing())
    .execute();
}

/** Ends the partnership; false when there was none. */
export async function deletePartnership(db: Db, companyId: number, partnerId: number): Promise<boolean> {
  const res = await db
    .deleteFrom('company_partnership')
    .where('companyId', '=', companyId)
    .where('partnerId', '=', partnerId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}
