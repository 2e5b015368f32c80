/**
 * Platform companies (LOGIST, WAREHOUSE, MARKETPLACE, COURIER): flags, place, code names,
 * cargo and delivery types, partnerships, and locker access (a link to a Locker API company
 * whose orders the platform company creates, plus the operator's on/off switch).
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { normalizeCodeName } from '../../domain/platform/client-codes.ts';
import type { CompanyType } from '../../domain/platform/enums.ts';
import { getLockerCompany } from '../admin/companies.ts';
import { getCargoType } from './cargo-types.ts';
import { resolvePlaceChange, resolvePlatformPlace } from './directories.ts';
import { queueBulkJob, withBulkJobs } from './bulk-rewrites.ts';
import { defined, flag, inTransaction } from './tx.ts';

export interface PlatformCompanyFields {
  title: string;
  isActive?: boolean;
  isIntercity?: boolean;
  isInternational?: boolean;
  isCleaning?: boolean;
  phone?: string | null;
  email?: string | null;
  address?: string | null;
  countryId?: number | null;
  cityId?: number | null;
}

export interface PlatformCompanyInput extends PlatformCompanyFields {
  type: CompanyType;
  codes?: Array<{ title: string; cargoTypeId: number }>;
  cargoTypeIds?: number[];
  deliveryTypeIds?: number[];
  /** logistics companies this warehouse or marketplace works with */
  partnerIds?: number[];
  lockerCompanyId?: string | null;
  lockerAccess?: boolean;
}

/** Which company types may partner with which: warehouses serve logistics companies; marketplaces hand parcels to logistics or courier companies. */
const PARTNER_TYPES: Partial<Record<CompanyType, readonly CompanyType[]>> = {
  WAREHOUSE: ['LOGIST'],
  MARKETPLACE: ['LOGIST', 'COURIER'],
};

export async function getPlatformCompany(db: Db, id: number) {
  const row = await db.selectFrom('platform_company').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new DomainError('COMPANY_NOT_FOUND', `no platform company ${id}`);
  return row;
}

export function createPlatformCompany(db: Db, input: PlatformCompanyInput, now: Date) {
  return inTransaction(db, async (trx) => {
    const at = now.toISOString();
    const place = await resolvePlatformPlace(trx, input.countryId, input.cityId);
    if (input.lockerCompanyId) await getLockerCompany(trx, input.lockerCompanyId);
    if (input.lockerAccess && !input.lockerCompanyId) throw noLockerCompany();
    const company = await trx
      .insertInto('platform_company')
      .values({
        title: input.title,
        type: input.type,
        isActive: input.isActive === false ? 0 : 1,
        isIntercity: input.isIntercity ? 1 : 0,
        isInternational: input.isInternational ? 1 : 0,
        isCleaning: input.isCleaning ? 1 : 0,
        phone: input.phone ?? null,
        email: input.email ?? null,
        address: input.address ?? null,
        ...place,
        lockerCompanyId: input.lockerCompanyId ?? null,
        lockerAccess: input.lockerAccess ? 1 : 0,
        lastClientCode: 0,
        createdAt: at,
        updatedAt: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.cargoTypeIds?.length) await setCompanyCargoTypes(trx, company.id, input.cargoTypeIds);
    if (input.deliveryTypeIds?.length) await setCompanyDeliveryTypes(trx, company.id, input.deliveryTypeIds);
    for (const code of input.codes ?? []) await addCompanyCode(trx, company.id, code.title, code.cargoTypeId, now);
    for (const partnerId of input.partnerIds ?? []) await addPartnership(trx, company.id, partnerId, now);
    return company;
  });
}

export function updatePlatformCompany(db: Db, id: number, changes: Partial<PlatformCompanyFields>, now: Date) {
  return withBulkJobs(db, async (trx) => {
    const before = await getPlatformCompany(trx, id);
    const { isActive, isIntercity, isInternational, isCleaning, countryId, cityId, ...rest } = changes;
    const place = await resolvePlaceChange(trx, before, countryId, cityId);
    const row = await trx
      .updateTable('platform_company')
      .set({
        ...defined(rest),
        ...place,
        ...defined({
          isActive: flag(isActive),
          isIntercity: flag(isIntercity),
          isInternational: flag(isInternational),
          isCleaning: flag(isCleaning),
        }),
        updatedAt: now.toISOString(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    // Cargo search matches the logistics company's title.
    if (rest.title !== undefined && rest.title !== before.title) await queueBulkJob(trx, 'CARGO_OF_COMPANY', id, now);
    return row;
  });
}

const noLockerCompany = () =>
  new DomainError(
    'NOT_ACCEPTABLE',
    'locker access needs a linked locker company: link one (or create one with the company) first',
  );

/**
 * Links a Locker API company (or unlinks with null) and switches locker access. Orders the
 * platform company creates through the platform are that locker company's ordinary orders.
 */
export function setLockerAccess(
  db: Db,
  id: number,
  change: { lockerCompanyId?: string | null; enabled?: boolean },
  now: Date,
) {
  return inTransaction(db, async (trx) => {
    const before = await getPlatformCompany(trx, id);
    const lockerCompanyId = change.lockerCompanyId === undefined ? before.lockerCompanyId : change.lockerCompanyId;
    if (lockerCompanyId && lockerCompanyId !== before.lockerCompanyId) await getLockerCompany(trx, lockerCompanyId);
    const enabled = change.enabled ?? (lockerCompanyId ? before.lockerAccess === 1 : false);
    if (enabled && !lockerCompanyId) throw noLockerCompany();
    return trx
      .updateTable('platform_company')
      .set({ lockerCompanyId, lockerAccess: enabled ? 1 : 0, updatedAt: now.toISOString() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function listPlatformCompanies(db: Db, filter: { type?: CompanyType } = {}) {
  let q = db.selectFrom('platform_company').selectAll().orderBy('id');
  if (filter.type) q = q.where('type', '=', filter.type);
  return q.execute();
}

/** A company with its code names, cargo and delivery types and partners: the operator's and the API's full view. */
export async function platformCompanyDetails(db: Db, id: number) {
  const company = await getPlatformCompany(db, id);
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
  return {
    company,
    codes,
    cargoTypes,
    deliveryTypes,
    partnerIds: partners.map((p) => p.partnerId),
    partnerOfIds: partnerOf.map((p) => p.companyId),
  };
}

/** Adds a code name for one cargo type; the company then carries that cargo type too. */
export function addCompanyCode(db: Db, companyId: number, title: string, cargoTypeId: number, now: Date) {
  return withBulkJobs(db, async (trx) => {
    await getPlatformCompany(trx, companyId);
    await getCargoType(trx, cargoTypeId);
    const name = normalizeCodeName(title);
    const taken = await trx
      .selectFrom('company_code')
      .select(['id', 'companyId'])
      .where('title', '=', name)
      .executeTakeFirst();
    if (taken) throw new DomainError('NOT_ACCEPTABLE', `code name ${name} is taken by company ${taken.companyId}`);
    const at = now.toISOString();
    const row = await trx
      .insertInto('company_code')
      .values({ companyId, title: name, cargoTypeId, createdAt: at, updatedAt: at })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('company_cargo_type')
      .values({ companyId, cargoTypeId })
      .onConflict((oc) => oc.columns(['companyId', 'cargoTypeId']).doNothing())
      .execute();
    await queueBulkJob(trx, 'ITEMS_OF_CLIENT_COMPANY', companyId, now);
    return row;
  });
}

/** Removes a code name; its clients' items are no longer found by it. */
export function removeCompanyCode(db: Db, companyId: number, codeId: number, now: Date) {
  return withBulkJobs(db, async (trx) => {
    const res = await trx
      .deleteFrom('company_code')
      .where('id', '=', codeId)
      .where('companyId', '=', companyId)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1)
      throw new DomainError('NOT_FOUND', `company ${companyId} has no code name ${codeId}`);
    await queueBulkJob(trx, 'ITEMS_OF_CLIENT_COMPANY', companyId, now);
  });
}

async function checkIds(db: Db, table: 'cargo_type' | 'delivery_type', ids: number[]) {
  if (!ids.length) return;
  const found = await db.selectFrom(table).select('id').where('id', 'in', ids).execute();
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length) throw new DomainError('NOT_FOUND', `no ${table.replace('_', ' ')} ${missing.join(', ')}`);
}

/** Replaces the company's cargo types (the types of its code names stay). */
export function setCompanyCargoTypes(db: Db, companyId: number, cargoTypeIds: number[]) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, companyId);
    const codeTypes = (
      await trx.selectFrom('company_code').select('cargoTypeId').where('companyId', '=', companyId).execute()
    ).map((c) => c.cargoTypeId);
    const ids = [...new Set([...cargoTypeIds, ...codeTypes])];
    await checkIds(trx, 'cargo_type', ids);
    await trx.deleteFrom('company_cargo_type').where('companyId', '=', companyId).execute();
    if (ids.length)
      await trx
        .insertInto('company_cargo_type')
        .values(ids.map((cargoTypeId) => ({ companyId, cargoTypeId })))
        .execute();
    return ids;
  });
}

export function setCompanyDeliveryTypes(db: Db, companyId: number, deliveryTypeIds: number[]) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, companyId);
    const ids = [...new Set(deliveryTypeIds)];
    await checkIds(trx, 'delivery_type', ids);
    await trx.deleteFrom('company_delivery_type').where('companyId', '=', companyId).execute();
    if (ids.length)
      await trx
        .insertInto('company_delivery_type')
        .values(ids.map((deliveryTypeId) => ({ companyId, deliveryTypeId })))
        .execute();
    return ids;
  });
}

/** A warehouse company starts serving a logistics company, or a marketplace takes a delivery partner. */
export function addPartnership(db: Db, companyId: number, partnerId: number, now: Date) {
  return inTransaction(db, async (trx) => {
    const [company, partner] = [await getPlatformCompany(trx, companyId), await getPlatformCompany(trx, partnerId)];
    const allowed = PARTNER_TYPES[company.type];
    if (!allowed)
      throw new DomainError(
        'NOT_ACCEPTABLE',
        `a ${company.type} company has no partners (only WAREHOUSE and MARKETPLACE companies do)`,
      );
    if (!allowed.includes(partner.type))
      throw new DomainError(
        'NOT_ACCEPTABLE',
        `a ${company.type} company partners with ${allowed.join(' or ')} companies, and ${partnerId} is ${partner.type}`,
      );
    await trx
      .insertInto('company_partnership')
      .values({ companyId, partnerId, createdAt: now.toISOString() })
      .onConflict((oc) => oc.columns(['companyId', 'partnerId']).doNothing())
      .execute();
  });
}

export async function removePartnership(db: Db, companyId: number, partnerId: number) {
  const res = await db
    .deleteFrom('company_partnership')
    .where('companyId', '=', companyId)
    .where('partnerId', '=', partnerId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) !== 1)
    throw new DomainError('NOT_FOUND', `company ${companyId} does not work with company ${partnerId}`);
}

/** The logistics companies a company works with (a LOGIST company: itself). */
export async function partnerIdsOf(db: Db, companyId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('company_partnership')
    .select('partnerId')
    .where('companyId', '=', companyId)
    .execute();
  return rows.map((r) => r.partnerId);
}
