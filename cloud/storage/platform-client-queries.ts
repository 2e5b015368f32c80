/**
 * Clients and suppliers read. The integrations find clients by id and by code (the five search
 * forms), each an index lookup: a code name through company_code's unique title, a client
 * through (companyId, code) or (code, companyId). Writes are in platform-client-writes.ts.
 */
import type { Db } from './database.ts';
import { CLIENT_SEARCH_LIMIT, type ClientScope, type CodeSearch } from '../domain/platform/client-search.ts';
import type { CargoKind } from '../domain/platform/enums.ts';
import { codesOfCompanies, rowsById, type CodeWithType, type Row } from './platform-related.ts';

export type ClientRow = Row<'platform_client'>;

/** The companies whose clients a company sees in a scope: itself, and the active logistics companies it works with. */
export async function scopeCompanyIds(db: Db, companyId: number, scope: ClientScope): Promise<number[]> {
  const partners = scope.partners
    ? await db
        .selectFrom('company_partnership as p')
        .innerJoin('platform_company as c', 'c.id', 'p.partnerId')
        .select('c.id')
        .where('p.companyId', '=', companyId)
        .where('c.type', '=', 'LOGIST')
        .where('c.isActive', '=', 1)
        .orderBy('c.id')
        .execute()
    : [];
  return [...(scope.own ? [companyId] : []), ...partners.map((r) => r.id)];
}

async function companyOfCodeName(db: Db, codeName: string): Promise<number | undefined> {
  return (await db.selectFrom('company_code').select('companyId').where('title', '=', codeName).executeTakeFirst())
    ?.companyId;
}

/** Active clients matching a search form within `companyIds`, at most 20, by code. */
export async function searchClientsByCode(db: Db, companyIds: number[], search: CodeSearch): Promise<ClientRow[]> {
  if (!companyIds.length || search.form === 'none') return [];
  const clients = db.selectFrom('platform_client').selectAll().where('isActive', '=', 1).limit(CLIENT_SEARCH_LIMIT);
  if (search.form === 'code') {
    return clients
      .where('code', '=', search.code)
      .where('companyId', 'in', companyIds)
      .orderBy('code')
      .orderBy('companyId')
      .execute();
  }
  const companyId = await companyOfCodeName(db, search.codeName);
  if (companyId === undefined || !companyIds.includes(companyId)) return [];
  const own = clients.where('companyId', '=', companyId);
  return (search.form === 'full' ? own.where('code', '=', search.code) : own).orderBy('code').execute();
}

export async function findClientIn(db: Db, companyIds: number[], id: number): Promise<ClientRow | undefined> {
  if (!companyIds.length) return undefined;
  return db
    .selectFrom('platform_client')
    .selectAll()
    .where('id', '=', id)
    .where('companyId', 'in', companyIds)
    .executeTakeFirst();
}

export interface ClientRelations {
  countries: Map<number, Row<'platform_country'>>;
  cities: Map<number, Row<'platform_city'>>;
  companies: Map<number, Row<'platform_company'>>;
  codes: Map<number, CodeWithType[]>;
}

/** What client objects nest, for a page of clients; `kinds` keeps only the code names of those cargo kinds. */
export async function clientRelations(
  db: Db,
  clients: ClientRow[],
  kinds?: readonly CargoKind[],
): Promise<ClientRelations> {
  const companyIds = [...new Set(clients.map((c) => c.companyId))];
  const [countries, cities, companies, codes] = await Promise.all([
    rowsById(
      db,
      'platform_country',
      clients.map((c) => c.countryId),
    ),
    rowsById(
      db,
      'platform_city',
      clients.map((c) => c.cityId),
    ),
    rowsById(db, 'platform_company', [...companyIds, ...clients.map((c) => c.deliveryWarehouseCompanyId)]),
    codesOfCompanies(db, companyIds, kinds),
  ]);
  return { countries, cities, companies, codes };
}

/** The company's active supplier with exactly this phone. */
export function findActiveSupplierByPhone(
  db: Db,
  companyId: number,
  phone: string,
): Promise<Row<'supplier'> | undefined> {
  return db
    .selectFrom('supplier')
    .selectAll()
    .where('companyId', '=', companyId)
    .where('phone', '=', phone)
    .where('isActive', '=', 1)
    .executeTakeFirst();
}

export function findSupplierOf(db: Db, companyId: number, id: number): Promise<Row<'supplier'> | undefined> {
  return db
    .selectFrom('supplier')
    .selectAll()
    .where('id', '=', id)
    .where('companyId', '=', companyId)
    .executeTakeFirst();
}

export function findClient(db: Db, id: number): Promise<ClientRow | undefined> {
  return db.selectFrom('platform_client').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findClientId(db: Db, id: number) {
  return db.selectFrom('platform_client').select('id').where('id', '=', id).executeTakeFirst();
}

export function findClientPhone(db: Db, id: number) {
  return db.selectFrom('platform_client').select('phone').where('id', '=', id).executeTakeFirst();
}

/** The company's client holding this code, if any. */
export function findClientIdByCode(db: Db, companyId: number, code: number) {
  return db
    .selectFrom('platform_client')
    .select('id')
    .where('companyId', '=', companyId)
    .where('code', '=', code)
    .executeTakeFirst();
}

/** The company's clients with exactly this phone, oldest first. */
export function findClientsByPhone(db: Db, companyId: number, phone: string): Promise<ClientRow[]> {
  return db
    .selectFrom('platform_client')
    .selectAll()
    .where('companyId', '=', companyId)
    .where('phone', '=', phone)
    .orderBy('id')
    .execute();
}

/** A company's clients by code, at most `limit`. */
export function listClientRows(db: Db, companyId: number, limit: number): Promise<ClientRow[]> {
  return db
    .selectFrom('platform_client')
    .selectAll()
    .where('companyId', '=', companyId)
    .orderBy('code')
    .limit(limit)
    .execute();
}

/** The company's supplier with exactly this phone, active or not. */
export function getSupplierByPhone(db: Db, companyId: number, phone: string): Promise<Row<'supplier'>> {
  return db
    .selectFrom('supplier')
    .selectAll()
    .where('companyId', '=', companyId)
    .where('phone', '=', phone)
    .executeTakeFirstOrThrow();
}

export function listSupplierRows(db: Db, companyId: number): Promise<Array<Row<'supplier'>>> {
  return db.selectFrom('supplier').selectAll().where('companyId', '=', companyId).orderBy('id').execute();
}
