/**
 * Platform companies read: as the integrations see them (only active records, with the active
 * places), and whole, with their links, for the operations. Writes are in platform-company-writes.ts.
 */
import type { Db } from './database.ts';
import type { CompanyType } from '../domain/platform/enums.ts';
import type { Row } from './platform-related.ts';
import { groupBy } from './batches.ts';

export interface CompanyFlagFilter {
  isIntercity?: boolean;
  isInternational?: boolean;
  isCleaning?: boolean;
}

/** Active logistics companies, by id; each flag given selects companies with (true) or without (false) it. */
export function listLogisticCompanies(db: Db, flags: CompanyFlagFilter): Promise<Array<Row<'platform_company'>>> {
  let q = db.selectFrom('platform_company').selectAll().where('type', '=', 'LOGIST').where('isActive', '=', 1);
  for (const name of ['isIntercity', 'isInternational', 'isCleaning'] as const) {
    const v = flags[name];
    if (v !== undefined) q = q.where(name, '=', v ? 1 : 0);
  }
  return q.orderBy('id').execute();
}

/** The active company of this type with this id. */
export function findActiveCompany(db: Db, id: number, type: CompanyType): Promise<Row<'platform_company'> | undefined> {
  return db
    .selectFrom('platform_company')
    .selectAll()
    .where('id', '=', id)
    .where('type', '=', type)
    .where('isActive', '=', 1)
    .executeTakeFirst();
}

/** Active countries, each with its active cities, by id. */
export async function activeCountriesWithCities(db: Db) {
  const [countries, cities] = await Promise.all([
    db.selectFrom('platform_country').selectAll().where('isActive', '=', 1).orderBy('id').execute(),
    db.selectFrom('platform_city').selectAll().where('isActive', '=', 1).orderBy('id').execute(),
  ]);
  const byCountry = groupBy(cities, (c) => c.countryId);
  return countries.map((country) => ({ country, cities: byCountry.get(country.id) ?? [] }));
}

/** One company, active or not. */
export function findPlatformCompany(db: Db, id: number): Promise<Row<'platform_company'> | undefined> {
  return db.selectFrom('platform_company').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listPlatformCompanyRows(db: Db, filter: { type?: CompanyType }) {
  let q = db.selectFrom('platform_company').selectAll().orderBy('id');
  if (filter.type) q = q.where('type', '=', filter.type);
  return q.execute();
}

/** The company's code names, cargo and delivery types, its partners and the companies it is a partner of. */
export async function companyLinks(db: Db, id: number) {
  const [codes, cargoTypes, deliveryTypes, partners, partnerOf] = await Promise.all([
    db
      .selectFrom('company_code')
      .select(['id', 'title', 'cargoTypeId'])
      .where('companyId', '=', id)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('company_cargo_type as l')
      .innerJoin('cargo_type as t', 't.id', 'l.cargoTypeId')
      .select(['t.id', 't.title', 't.type'])
      .where('l.companyId', '=', id)
      .orderBy('t.id')
      .execute(),
    db
      .selectFrom('company_delivery_type as l')
      .innerJoin('delivery_type as d', 'd.id', 'l.deliveryTypeId')
      .select(['d.id', 'd.title'])
      .where('l.companyId', '=', id)
      .orderBy('d.id')
      .execute(),
    db.selectFrom('company_partnership').select('partnerId').where('companyId', '=', id).orderBy('partnerId').execute(),
    db.selectFrom('company_partnership').select('companyId').where('partnerId', '=', id).orderBy('companyId').execute(),
  ]);
  return { codes, cargoTypes, deliveryTypes, partners, partnerOf };
}

/** The company holding this code name (code names are unique across companies), if any. */
export function findCodeNameHolder(db: Db, title: string) {
  return db.selectFrom('company_code').select(['id', 'companyId']).where('title', '=', title).executeTakeFirst();
}

/** The cargo types of the company's code names, one per code name. */
export function codeNameCargoTypes(db: Db, companyId: number) {
  return db.selectFrom('company_code').select('cargoTypeId').where('companyId', '=', companyId).execute();
}

/** Which of these ids `table` has. */
export function existingIds(db: Db, table: 'cargo_type' | 'delivery_type', ids: number[]) {
  return db.selectFrom(table).select('id').where('id', 'in', ids).execute();
}

/** The companies this one works with, unordered. */
export function partnerIdRows(db: Db, companyId: number) {
  return db.selectFrom('company_partnership').select('partnerId').where('companyId', '=', companyId).execute();
}

/** The companies a marketplace hands parcels to, with their type and whether they are active. */
export function partnersWithType(db: Db, companyId: number) {
  return db
    .selectFrom('company_partnership as l')
    .innerJoin('platform_company as c', 'c.id', 'l.partnerId')
    .select(['c.id', 'c.type', 'c.isActive'])
    .where('l.companyId', '=', companyId)
    .execute();
}

/** The active locker company the platform company acts as, when its locker access is on. */
export async function lockerCompanyOf(db: Db, platformCompanyId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('platform_company as p')
    .innerJoin('locker_company as l', 'l.id', 'p.lockerCompanyId')
    .select('l.id')
    .where('p.id', '=', platformCompanyId)
    .where('p.lockerAccess', '=', 1)
    .where('l.isActive', '=', 1)
    .executeTakeFirst();
  return row?.id;
}
