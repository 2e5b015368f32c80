/**
 * Clients (recipients registered with a company, each with a code unique within it) and
 * suppliers (senders). Codes come from the company's counter (domain/platform/client-codes.ts).
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { allocateClientCode } from '../../domain/platform/client-codes.ts';
import { clientSearchText } from '../../domain/platform/search-text.ts';
import { isUniqueViolation } from '../../storage/sql-errors.ts';
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
  const row = await db.selectFrom('platform_client').selectAll().where('id', '=', id).executeTakeFirst();
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
      const taken = await trx
        .selectFrom('platform_client')
        .select('id')
        .where('companyId', '=', companyId)
        .where('code', '=', code)
        .executeTakeFirst();
      if (taken)
        throw new DomainError(
          'NOT_ACCEPTABLE',
          `client code ${code} is taken at company ${companyId} (client ${taken.id})`,
        );
    }
    const moved = await trx
      .updateTable('platform_company')
      .set({ lastClientCode: last })
      .where('id', '=', companyId)
      .where('lastClientCode', '=', lastClientCode)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 1) return code;
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
    return trx
      .insertInto('platform_client')
      .values({
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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
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
    return (
      trx
        .updateTable('platform_client')
        // Only a changed text is written: on SQLite every write of the column re-files the row in its index.
        .set({
          ...defined(rest),
          ...place,
          ...defined({
            isActive: flag(isActive),
            searchText: searchText === before.searchText ? undefined : searchText,
          }),
          updatedAt: now.toISOString(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
    );
  });
}

export function findClientsByPhone(db: Db, companyId: number, phone: string) {
  return db
    .selectFrom('platform_client')
    .selectAll()
    .where('companyId', '=', companyId)
    .where('phone', '=', phone)
    .orderBy('id')
    .execute();
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
    const locked = await trx
      .updateTable('platform_company')
      .set((eb) => ({ lastClientCode: eb.ref('lastClientCode') }))
      .where('id', '=', input.companyId)
      .executeTakeFirst();
    if (Number(locked.numUpdatedRows) !== 1)
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
      return await trx
        .insertInto('supplier')
        .values({
          companyId: input.companyId,
          phone: input.phone,
          name: input.name ?? null,
          address: input.address ?? null,
          cityId: input.cityId ?? null,
          isActive: input.isActive === false ? 0 : 1,
          createdAt: at,
          updatedAt: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
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
    const row = await db
      .updateTable('supplier')
      .set({ ...defined(rest), ...defined({ isActive: flag(isActive) }), updatedAt: now.toISOString() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
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
    await trx
      .insertInto('supplier')
      .values({
        companyId: input.companyId,
        phone: input.phone,
        name: input.name ?? null,
        address: input.address ?? null,
        cityId: input.cityId ?? null,
        isActive: 1,
        createdAt: at,
        updatedAt: at,
      })
      .onConflict((oc) => oc.columns(['companyId', 'phone']).doNothing())
      .execute();
    return trx
      .selectFrom('supplier')
      .selectAll()
      .where('companyId', '=', input.companyId)
      .where('phone', '=', input.phone)
      .executeTakeFirstOrThrow();
  });
}

/** A company's clients by code (the operator's view). */
export async function listClients(db: Db, companyId: number, limit = 100) {
  await getPlatformCompany(db, companyId);
  return db
    .selectFrom('platform_client')
    .selectAll()
    .where('companyId', '=', companyId)
    .orderBy('code')
    .limit(limit)
    .execute();
}

export async function listSuppliers(db: Db, companyId: number) {
  await getPlatformCompany(db, companyId);
  return db.selectFrom('supplier').selectAll().where('companyId', '=', companyId).orderBy('id').execute();
}
