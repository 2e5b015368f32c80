/**
 * Clients (recipients registered with a company, each with a code unique within it) and
 * suppliers (senders). Codes come from the company's counter (domain/platform/client-codes.ts).
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { allocateClientCode } from '../../domain/platform/client-codes.ts';
import { clientSearchText } from '../../domain/platform/search-text.ts';
import { isUniqueViolation } from '../../storage/sql-errors.ts';
import {
  findClient,
  findClientIdByCode,
  findClientsByPhone,
  getSupplierByPhone,
  listClientRows,
  listSupplierRows,
} from '../../storage/platform-client-queries.ts';
import {
  insertClient,
  insertSupplier,
  insertSupplierUnlessPhoneTaken,
  lockCompanyForClients,
  moveClientCodeCounter,
  updateClientRow,
  updateSupplierRow,
} from '../../storage/platform-client-writes.ts';
import { getPlatformCompany } from './companies.ts';
import { resolvePlaceChange, resolvePlatformPlace } from './directories.ts';
import { defined, flag, inTransaction } from './tx.ts';

export interface ClientInput {
  companyId: number;
  /** a specific code (unique within the company); drawn from the counter when omitted */
  code?: number;
  name?: string | null;
  phone?: string | null;
  address?: string | null;
  countryId?: number | null;
  cityId?: number | null;
  deliveryWarehouseCompanyId?: number | null;
  isActive?: boolean;
}

export interface SupplierInput {
  companyId: number;
  phone: string;
  name?: string | null;
  address?: string | null;
  cityId?: number | null;
  isActive?: boolean;
}

export async function getClient(db: Db, id: number) {
  const row = await findClient(db, id);
  if (!row) throw new DomainError('CLIENT_NOT_FOUND', `no client ${id}`);
  return row;
}

async function checkDeliveryCompany(db: Db, id: number | null | undefined) {
  if (id === null || id === undefined) return;
  const c = await getPlatformCompany(db, id);
  if (c.type !== 'WAREHOUSE' && c.type !== 'LOGIST')
    throw new DomainError(
      'NOT_ACCEPTABLE',
      `delivery warehouse company ${id} is ${c.type}, not a WAREHOUSE or LOGIST company`,
    );
}

/** Moves the company's code counter from the value read to the next; a concurrent move makes it read again. */
async function takeCode(trx: Db, companyId: number, requested?: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const { lastClientCode } = await getPlatformCompany(trx, companyId);
    const { code, last } = allocateClientCode(lastClientCode, requested);
    if (requested !== undefined) {
      const taken = await findClientIdByCode(trx, companyId, code);
      if (taken)
        throw new DomainError(
          'NOT_ACCEPTABLE',
          `client code ${code} is taken at company ${companyId} (client ${taken.id})`,
        );
    }
    if (await moveClientCodeCounter(trx, companyId, lastClientCode, last)) return code;
  }
  throw new DomainError('CODE_NOT_FOUND', `no client code could be assigned at company ${companyId}`);
}

export function createClient(db: Db, input: ClientInput, now: Date) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, input.companyId);
    await checkDeliveryCompany(trx, input.deliveryWarehouseCompanyId);
    const place = await resolvePlatformPlace(trx, input.countryId, input.cityId);
    const code = await takeCode(trx, input.companyId, input.code);
    const at = now.toISOString();
    return insertClient(trx, {
      companyId: input.companyId,
      code,
      name: input.name ?? null,
      phone: input.phone ?? null,
      searchText: clientSearchText({ name: input.name ?? null, phone: input.phone ?? null }),
      address: input.address ?? null,
      ...place,
      deliveryWarehouseCompanyId: input.deliveryWarehouseCompanyId ?? null,
      isActive: input.isActive === false ? 0 : 1,
      createdAt: at,
      updatedAt: at,
    });
  });
}

/**
 * Changes a client (its code and company never change). Its items are found by its new name
 * and phone at once: the list search matches the client's own search text, so none of its
 * parcels or cargo is rewritten.
 */
export function updateClient(db: Db, id: number, changes: Partial<Omit<ClientInput, 'companyId' | 'code'>>, now: Date) {
  return inTransaction(db, async (trx) => {
    const before = await getClient(trx, id);
    const { isActive, countryId, cityId, ...rest } = changes;
    await checkDeliveryCompany(trx, rest.deliveryWarehouseCompanyId);
    const place = await resolvePlaceChange(trx, before, countryId, cityId);
    const searchText = clientSearchText({
      name: rest.name === undefined ? before.name : rest.name,
      phone: rest.phone === undefined ? before.phone : rest.phone,
    });
    // Only a changed text is written: on SQLite every write of the column re-files the row in its index.
    return updateClientRow(trx, id, {
      ...defined(rest),
      ...place,
      ...defined({
        isActive: flag(isActive),
        searchText: searchText === before.searchText ? undefined : searchText,
      }),
      updatedAt: now.toISOString(),
    });
  });
}

/**
 * The company's client with this phone (the oldest, if several), or a new one. A company may
 * keep two clients on one phone, so no unique index can stop two concurrent registrations of a
 * new phone: the company's row is locked first (a no-op update), so the second registration
 * waits for the first to commit and then finds its client (READ COMMITTED reads anew per
 * statement; SQLite writers run one at a time).
 */
export function findOrCreateClientByPhone(db: Db, input: ClientInput & { phone: string }, now: Date) {
  return inTransaction(db, async (trx) => {
    if (!(await lockCompanyForClients(trx, input.companyId)))
      throw new DomainError('COMPANY_NOT_FOUND', `no platform company ${input.companyId}`);
    const [existing] = await findClientsByPhone(trx, input.companyId, input.phone);
    return existing ?? createClient(trx, input, now);
  });
}

export async function createSupplier(db: Db, input: SupplierInput, now: Date) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, input.companyId);
    if (input.cityId !== null && input.cityId !== undefined) await resolvePlatformPlace(trx, undefined, input.cityId);
    const at = now.toISOString();
    try {
      return await insertSupplier(trx, {
        companyId: input.companyId,
        phone: input.phone,
        name: input.name ?? null,
        address: input.address ?? null,
        cityId: input.cityId ?? null,
        isActive: input.isActive === false ? 0 : 1,
        createdAt: at,
        updatedAt: at,
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new DomainError('NOT_ACCEPTABLE', `company ${input.companyId} has a supplier with phone ${input.phone}`);
      throw err;
    }
  });
}

export async function updateSupplier(
  db: Db,
  id: number,
  changes: Partial<Omit<SupplierInput, 'companyId'>>,
  now: Date,
) {
  const { isActive, ...rest } = changes;
  if (rest.cityId !== null && rest.cityId !== undefined) await resolvePlatformPlace(db, undefined, rest.cityId);
  try {
    const row = await updateSupplierRow(db, id, {
      ...defined(rest),
      ...defined({ isActive: flag(isActive) }),
      updatedAt: now.toISOString(),
    });
    if (!row) throw new DomainError('SUPPLIER_NOT_FOUND', `no supplier ${id}`);
    return row;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new DomainError('NOT_ACCEPTABLE', `that company already has a supplier with phone ${rest.phone}`);
    throw err;
  }
}

/** The company's supplier with this phone, or a new one; safe against a concurrent twin (unique per company and phone). */
export function findOrCreateSupplierByPhone(db: Db, input: SupplierInput, now: Date) {
  return inTransaction(db, async (trx) => {
    const at = now.toISOString();
    await getPlatformCompany(trx, input.companyId);
    await insertSupplierUnlessPhoneTaken(trx, {
      companyId: input.companyId,
      phone: input.phone,
      name: input.name ?? null,
      address: input.address ?? null,
      cityId: input.cityId ?? null,
      isActive: 1,
      createdAt: at,
      updatedAt: at,
    });
    return getSupplierByPhone(trx, input.companyId, input.phone);
  });
}

/** A company's clients by code (the operator's view). */
export async function listClients(db: Db, companyId: number, limit = 100) {
  await getPlatformCompany(db, companyId);
  return listClientRows(db, companyId, limit);
}

export async function listSuppliers(db: Db, companyId: number) {
  await getPlatformCompany(db, companyId);
  return listSupplierRows(db, companyId);
}
