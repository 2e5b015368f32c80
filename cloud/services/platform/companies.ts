/**
 * Platform companies (LOGIST, WAREHOUSE, MARKETPLACE, COURIER): flags, place, code names,
 * cargo and delivery types, partnerships, and locker access (a link to a Locker API company
 * whose orders the platform company creates, plus the operator's on/off switch).
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { normalizeCodeName } from '../../domain/platform/client-codes.ts';
import type { CompanyType } from '../../domain/platform/enums.ts';
import {
  codeNameCargoTypes,
  companyLinks,
  existingIds,
  findCodeNameHolder,
  findPlatformCompany,
  listPlatformCompanyRows,
  partnerIdRows,
} from '../../storage/platform-company-queries.ts';
import {
  deleteCompanyCode,
  deletePartnership,
  insertCompanyCode,
  insertPartnership,
  insertPlatformCompany,
  replaceCompanyCargoTypes,
  replaceCompanyDeliveryTypes,
  updatePlatformCompanyRow,
} from '../../storage/platform-company-writes.ts';
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
  const row = await findPlatformCompany(db, id);
  if (!row) throw new DomainError('COMPANY_NOT_FOUND', `no platform company ${id}`);
  return row;
}

export function createPlatformCompany(db: Db, input: PlatformCompanyInput, now: Date) {
  return inTransaction(db, async (trx) => {
    const at = now.toISOString();
    const place = await resolvePlatformPlace(trx, input.countryId, input.cityId);
    if (input.lockerCompanyId) await getLockerCompany(trx, input.lockerCompanyId);
    if (input.lockerAccess && !input.lockerCompanyId) throw noLockerCompany();
    const company = await insertPlatformCompany(trx, {
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
    });
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
    const row = await updatePlatformCompanyRow(trx, id, {
      ...defined(rest),
      ...place,
      ...defined({
        isActive: flag(isActive),
        isIntercity: flag(isIntercity),
        isInternational: flag(isInternational),
        isCleaning: flag(isCleaning),
      }),
      updatedAt: now.toISOString(),
    });
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
    return updatePlatformCompanyRow(trx, id, {
      lockerCompanyId,
      lockerAccess: enabled ? 1 : 0,
      updatedAt: now.toISOString(),
    });
  });
}

export function listPlatformCompanies(db: Db, filter: { type?: CompanyType } = {}) {
  return listPlatformCompanyRows(db, filter);
}

/** A company with its code names, cargo and delivery types and partners: the operator's and the API's full view. */
export async function platformCompanyDetails(db: Db, id: number) {
  const company = await getPlatformCompany(db, id);
  const { codes, cargoTypes, deliveryTypes, partners, partnerOf } = await companyLinks(db, id);
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
    const taken = await findCodeNameHolder(trx, name);
    if (taken) throw new DomainError('NOT_ACCEPTABLE', `code name ${name} is taken by company ${taken.companyId}`);
    const row = await insertCompanyCode(trx, { companyId, title: name, cargoTypeId, at: now.toISOString() });
    await queueBulkJob(trx, 'ITEMS_OF_CLIENT_COMPANY', companyId, now);
    return row;
  });
}

/** Removes a code name; its clients' items are no longer found by it. */
export function removeCompanyCode(db: Db, companyId: number, codeId: number, now: Date) {
  return withBulkJobs(db, async (trx) => {
    if (!(await deleteCompanyCode(trx, companyId, codeId)))
      throw new DomainError('NOT_FOUND', `company ${companyId} has no code name ${codeId}`);
    await queueBulkJob(trx, 'ITEMS_OF_CLIENT_COMPANY', companyId, now);
  });
}

async function checkIds(db: Db, table: 'cargo_type' | 'delivery_type', ids: number[]) {
  if (!ids.length) return;
  const found = await existingIds(db, table, ids);
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length) throw new DomainError('NOT_FOUND', `no ${table.replace('_', ' ')} ${missing.join(', ')}`);
}

/** Replaces the company's cargo types (the types of its code names stay). */
export function setCompanyCargoTypes(db: Db, companyId: number, cargoTypeIds: number[]) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, companyId);
    const codeTypes = (await codeNameCargoTypes(trx, companyId)).map((c) => c.cargoTypeId);
    const ids = [...new Set([...cargoTypeIds, ...codeTypes])];
    await checkIds(trx, 'cargo_type', ids);
    await replaceCompanyCargoTypes(trx, companyId, ids);
    return ids;
  });
}

export function setCompanyDeliveryTypes(db: Db, companyId: number, deliveryTypeIds: number[]) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, companyId);
    const ids = [...new Set(deliveryTypeIds)];
    await checkIds(trx, 'delivery_type', ids);
    await replaceCompanyDeliveryTypes(trx, companyId, ids);
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
    await insertPartnership(trx, companyId, partnerId, now.toISOString());
  });
}

export async function removePartnership(db: Db, companyId: number, partnerId: number) {
  if (!(await deletePartnership(db, companyId, partnerId)))
    throw new DomainError('NOT_FOUND', `company ${companyId} does not work with company ${partnerId}`);
}

/** The logistics companies a company works with (a LOGIST company: itself). */
export async function partnerIdsOf(db: Db, companyId: number): Promise<number[]> {
  const rows = await partnerIdRows(db, companyId);
  return rows.map((r) => r.partnerId);
}
