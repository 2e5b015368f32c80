/**
 * The parcel and cargo lists: the spec's filters (domain/platform/list-search.ts and
 * list-filters.ts) turned into one query over the denormalised columns, newest first. Every
 * condition is an index range of migration 006 or a lookup in the trigram indexes of 009 and 010.
 */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { Db, DialectName } from './database.ts';
import type { Database } from './schema.ts';
import type { CargoKind } from '../domain/platform/enums.ts';
import { clientCodesFilter, type ListSearch } from '../domain/platform/list-search.ts';
import type { StatusSelection, Term } from '../domain/platform/list-filters.ts';
import { scopedSearchIds, searchMatch, type ItemScope, type SearchedTable } from './shipment-search.ts';
import type { Row } from './platform-related.ts';
import { arrayBatches, KeysetBatches, mapBatches } from './batches.ts';

export interface ShipmentFilter {
  /** the caller: lists hold its clients' items, and a `<code name>-<code>` search only its code names */
  companyId: number;
  /** supplier/{id}/parcels: that supplier's items instead */
  supplierId?: number;
  search?: ListSearch;
  code?: number;
  codes?: readonly number[];
  statuses?: StatusSelection;
  /** the spec's `isPayed`: items without a payment order match neither value */
  isPaid?: boolean;
  cargoKinds?: readonly CargoKind[];
}

export interface Page {
  limit: number;
  offset: number;
}

type ItemRow<T extends SearchedTable> = Row<T>;
// Both tables share the columns filtered on; the builder is typed on parcel's.
type Eb = ExpressionBuilder<Database, 'parcel'>;

function termSql(eb: Eb, t: Term): Expression<SqlBool> {
  const parts: Array<Expression<SqlBool>> = [];
  if (t.statuses) parts.push(eb('status', 'in', t.statuses as never[]));
  if (t.atPickupPoint !== undefined) parts.push(eb('atPickupPoint', '=', t.atPickupPoint ? 1 : 0));
  if (t.atFinalPoint !== undefined) parts.push(eb('atFinalPoint', '=', t.atFinalPoint ? 1 : 0));
  if (t.hasPaymentOrder !== undefined) parts.push(eb('paymentOrderId', t.hasPaymentOrder ? 'is not' : 'is', null));
  return eb.and(parts);
}

/** The company whose code name this is, if it is the caller's (search rule 1 reads only the caller's codes). */
async function ownsCodeName(db: Db, companyId: number, codeName: string): Promise<boolean> {
  const row = await db
    .selectFrom('company_code')
    .select('id')
    .where('title', '=', codeName)
    .where('companyId', '=', companyId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The items a filter selects, as a query to add columns, order and limits to; undefined when
 * the filter already tells that nothing matches.
 */
export async function selectShipments(db: Db, dialect: DialectName, table: SearchedTable, f: ShipmentFilter) {
  const codes = clientCodesFilter(f.search, f.code, f.codes);
  if (codes === null || codes?.length === 0) return undefined;
  if (f.search?.kind === 'client' && !(await ownsCodeName(db, f.companyId, f.search.codeName))) return undefined;

  // Rule 1 names a client of the caller: its items are the caller's clients' items too.
  const scope: ItemScope = {
    supplierId: f.supplierId,
    clientCompanyId: f.supplierId === undefined || f.search?.kind === 'client' ? f.companyId : undefined,
  };
  let q = db.selectFrom(table as 'parcel');
  if (scope.supplierId !== undefined) q = q.where('supplierId', '=', scope.supplierId);
  if (scope.clientCompanyId !== undefined) q = q.where('clientCompanyId', '=', scope.clientCompanyId);
  if (codes) q = q.where('clientCode', 'in', codes);
  const s = f.search;
  if (s?.kind === 'text') q = q.where(searchMatch(dialect, table, s, scope));
  const sel = f.statuses;
  if (sel) {
    q = q.where((eb) => eb.or(sel.include.map((t) => termSql(eb, t))));
    if (sel.exclude.length) q = q.where((eb) => eb.not(eb.or(sel.exclude.map((t) => termSql(eb, t)))));
  }
  if (f.isPaid !== undefined) q = q.where('isPaid', '=', f.isPaid ? 1 : 0);
  if (f.cargoKinds) q = q.where(sql.ref('cargoKind'), 'in', [...f.cargoKinds]);
  return q;
}

export interface ShipmentPage<T extends SearchedTable> {
  total: number;
  /** the rows by descending id, a batch at a time (batches.ts) */
  batches: AsyncIterable<Array<ItemRow<T>>>;
}

/**
 * One page of a company's parcels or cargo (all of them without `page`), by descending id, and
 * the total. The spec sets no maximum page size, so the rows come in batches.
 * - With a text search, the matching ids and their count come from one evaluation of the
 *   search (`count(*) over ()`): the trigram lookup is the costly part, so it runs once; the
 *   rows of those ids are then read a batch at a time.
 * - Otherwise the batches walk the (company, id) indexes by keyset (id below the last one read),
 *   and only a list that does not end within its first batch, or an empty page past the first,
 *   costs a separate count: a shorter one already tells the total.
 */
export async function listShipments<T extends SearchedTable>(
  db: Db,
  dialect: DialectName,
  table: T,
  f: ShipmentFilter,
  page?: Page,
): Promise<ShipmentPage<T>> {
  const q = await selectShipments(db, dialect, table, f);
  if (!q) return { total: 0, batches: arrayBatches([]) };
  const offset = page?.offset ?? 0;
  const s = f.search;
  if (page && s?.kind === 'text') {
    const paged = <Q extends { limit(n: number): Q; offset(n: number): Q }>(x: Q) =>
      x.limit(page.limit).offset(page.offset);
    const hits =
      s.indexed && onlySearched(f)
        ? (
            await sql<{
              id: number;
              total: number;
            }>`select ${sql.ref('hit.id')}, count(*) over () as ${sql.ref('total')} from (${scopedSearchIds(dialect, table, s, f.companyId)}) as ${sql.ref('hit')} order by ${sql.ref('hit.id')} desc limit ${page.limit} offset ${page.offset}`.execute(
              db,
            )
          ).rows
        : await paged(
            q.select((eb) => ['id', eb.fn.countAll<number>().over().as('total')]).orderBy('id', 'desc'),
          ).execute();
    if (hits.length || offset === 0) {
      return {
        total: Number(hits[0]?.total ?? 0),
        batches: mapBatches(arrayBatches(hits.map((h) => h.id)), (ids) => rowsByIdDesc(db, table, ids)),
      };
    }
  }
  const batches = new KeysetBatches<ItemRow<T>>(({ after, offset: skip, limit }) => {
    let x = q.selectAll();
    if (after) x = x.where('id', '<', (after as { id: number }).id);
    x = x.orderBy('id', 'desc').limit(limit);
    return (skip ? x.offset(skip) : x).execute() as Promise<Array<ItemRow<T>>>;
  }, page);
  const first = await batches.first;
  const n = first.rows.length;
  const known = !first.more && (!page || (n > 0 && n < page.limit) || (n === 0 && offset === 0));
  if (known) return { total: offset + n, batches };
  const counted = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { total: Number(counted.n), batches };
}

/** The list is the caller's clients' items matching a text search, and nothing else. */
function onlySearched(f: ShipmentFilter): boolean {
  return (
    f.supplierId === undefined &&
    f.code === undefined &&
    f.codes === undefined &&
    f.statuses === undefined &&
    f.isPaid === undefined &&
    f.cargoKinds === undefined
  );
}

async function rowsByIdDesc<T extends SearchedTable>(db: Db, table: T, ids: number[]): Promise<Array<ItemRow<T>>> {
  if (!ids.length) return [];
  return (await db
    .selectFrom(table as 'parcel')
    .selectAll()
    .where('id', 'in', ids)
    .orderBy('id', 'desc')
    .execute()) as Array<ItemRow<T>>;
}
