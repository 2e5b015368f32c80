/**
 * The list search (rule 2) as one condition, and the one place where it differs by dialect.
 * An item matches when its own search text contains the string, or its client's does (the
 * client's name and phone live in the client's row: domain/platform/search-text.ts), or, for a
 * whole number, when its client has that code.
 *
 * With a trigram index (three characters or more), each branch is an index lookup and the item
 * is among their ids: `item.id in (own matches union all items of matching clients union all
 * items with that client code)`. A branch never scans the caller's items; the list's other
 * conditions then apply to the few rows found.
 * - SQLite: the FTS5 trigram table (positions not kept) finds the rows holding every trigram of
 *   a set that covers the text (consecutive three-character pieces, the last one ending with the
 *   text), and `instr` keeps those where the text itself occurs. Covering the text instead of
 *   asking for the phrase of all its overlapping trigrams reads a third of the doclists.
 * - PostgreSQL: `like '%…%'`, which the planner serves from the GIN trigram index.
 * Shorter searches have no trigram: both dialects test each of the caller's items with `like`
 * (its client's among the caller's clients matching, found once).
 *
 * When the search is a list's only condition besides "the caller's clients' items", the branches
 * can be scoped one by one (`scopedSearchIds`) and their ids counted and paged as they are: the
 * client branch then reads no item row at all (an item's clientCompanyId is its client's company,
 * and only the caller's clients match), which is most of a name search's work otherwise.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from './database.ts';
import type { TrigramTable } from './migrations/trigram-index.ts';

export type SearchedTable = 'parcel' | 'cargo';

/** A rule-2 search: lower-cased text, and the client code a whole number also names. */
export interface TextSearch {
  text: string;
  indexed: boolean;
  code?: number;
}

/** What the list is limited to: the caller's clients' items (`clientCompanyId`), or a supplier's. */
export interface ItemScope {
  clientCompanyId?: number;
  supplierId?: number;
}

/** Trigrams that together cover `text` (at least three characters), each quoted for FTS5. */
export function coveringTrigrams(text: string): string[] {
  const chars = [...text];
  const pieces: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i += 3) pieces.push(chars.slice(i, i + 3).join(''));
  if (chars.length % 3) pieces.push(chars.slice(-3).join(''));
  return [...new Set(pieces)].map((p) => `"${p.replaceAll('"', '""')}"`);
}

/** `%text%` with LIKE's wildcards and the escape character itself taken literally. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `text` (already lower-cased, as the search texts are) occurs in the row's search text, by the index when `indexed`. */
export function textMatch(
  dialect: DialectName,
  table: TrigramTable,
  text: string,
  indexed: boolean,
): RawBuilder<SqlBool> {
  const column = sql.ref(`${table}.searchText`);
  if (dialect === 'sqlite' && indexed) {
    const fts = sql.table(`${table}_search`);
    return sql<SqlBool>`(${sql.ref(`${table}.id`)} in (select rowid from ${fts} where ${fts} match ${coveringTrigrams(text).join(' AND ')}) and instr(${column}, ${text}) > 0)`;
  }
  return sql<SqlBool>`${column} like ${likeContains(text)} escape '\\'`;
}

const and = (parts: Array<RawBuilder<unknown>>) => sql.join(parts, sql` and `);

/** The scope's conditions on the items of `table`. */
function scoped(table: SearchedTable, scope: ItemScope): Array<RawBuilder<unknown>> {
  const parts = [];
  if (scope.clientCompanyId !== undefined)
    parts.push(sql`${sql.ref(`${table}.clientCompanyId`)} = ${scope.clientCompanyId}`);
  if (scope.supplierId !== undefined) parts.push(sql`${sql.ref(`${table}.supplierId`)} = ${scope.supplierId}`);
  return parts;
}

/**
 * The ids of clients whose search text holds the text: only the caller's, when the list holds
 * only the caller's clients' items, so that no other company's items are looked up. With a
 * trigram index the unary plus keeps the company's index out of the plan: SQLite would
 * otherwise walk the company's clients and test each against the index's answer.
 */
function matchingClients(dialect: DialectName, s: TextSearch, scope: ItemScope) {
  const parts = [textMatch(dialect, 'platform_client', s.text, s.indexed)];
  const companyId = sql.ref('platform_client.companyId');
  if (scope.clientCompanyId !== undefined)
    parts.push(
      s.indexed ? sql`+${companyId} = ${scope.clientCompanyId}` : sql`${companyId} = ${scope.clientCompanyId}`,
    );
  return sql`select ${sql.ref('platform_client.id')} from ${sql.table('platform_client')} where ${and(parts)}`;
}

/**
 * The indexed search's branches, each giving ids of `table`. With `scopeOwn`, the own-text branch
 * also keeps only the scope's items (the client branch has only the scope's clients already, and
 * the code branch is scoped always).
 */
function indexedBranches(
  dialect: DialectName,
  table: SearchedTable,
  s: TextSearch,
  scope: ItemScope,
  scopeOwn: boolean,
) {
  const t = sql.table(table);
  const id = sql.ref(`${table}.id`);
  const clientId = sql.ref(`${table}.clientId`);
  const clients = matchingClients(dialect, s, scope);
  const branches = [
    sql`select ${id} from ${t} where ${and([textMatch(dialect, table, s.text, true), ...(scopeOwn ? scoped(table, scope) : [])])}`,
    sql`select ${id} from ${t} where ${clientId} in (${clients})`,
  ];
  if (s.code !== undefined)
    branches.push(
      sql`select ${id} from ${t} where ${and([...scoped(table, scope), sql`${sql.ref(`${table}.clientCode`)} = ${s.code}`])}`,
    );
  return branches;
}

/** Rule 2 on the items of `table` within `scope` (which the list applies as well). */
export function searchMatch(
  dialect: DialectName,
  table: SearchedTable,
  s: TextSearch,
  scope: ItemScope,
): RawBuilder<SqlBool> {
  const id = sql.ref(`${table}.id`);
  if (!s.indexed) {
    const branches = [
      textMatch(dialect, table, s.text, false),
      sql`${sql.ref(`${table}.clientId`)} in (${matchingClients(dialect, s, scope)})`,
    ];
    if (s.code !== undefined) branches.push(sql`${sql.ref(`${table}.clientCode`)} = ${s.code}`);
    return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
  }
  const found = sql.join(indexedBranches(dialect, table, s, scope, false), sql` union all `);
  // PostgreSQL plans `id in (…)` as a join and judges its size from the column statistics: a
  // name that happens to be in the histogram counts as 1% of the clients, and the join then
  // walks the caller's items. An array is worked out first and then read by primary key.
  return dialect === 'postgres' ? sql<SqlBool>`${id} = any(array(${found}))` : sql<SqlBool>`${id} in (${found})`;
}

/**
 * The ids of the caller's clients' items that an indexed search finds, each branch carrying the
 * scope itself, without duplicates: for a list that has no other condition.
 */
export function scopedSearchIds(
  dialect: DialectName,
  table: SearchedTable,
  s: TextSearch,
  companyId: number,
): RawBuilder<{ id: number }> {
  return sql<{
    id: number;
  }>`${sql.join(indexedBranches(dialect, table, s, { clientCompanyId: companyId }, true), sql` union `)}`;
}
