/**
 * The one place where the list search differs by dialect (migration 009_platform_search):
 * - SQLite: the FTS5 trigram table (positions not kept) finds the rows holding every trigram of
 *   a set that covers the text (consecutive three-character pieces, the last one ending with the
 *   text), and `instr` keeps those where the text itself occurs. Covering the text instead of
 *   asking for the phrase of all its overlapping trigrams reads a third of the doclists: a name
 *   search over a million parcels takes about half the time, with the same answer.
 * - PostgreSQL: `like '%…%'` on `searchText`, which the planner serves from the GIN trigram index.
 * Searches shorter than three characters have no trigram: both dialects scan with `like`,
 * within the rows the other conditions leave (the caller's clients).
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from './database.ts';

export type SearchedTable = 'parcel' | 'cargo';

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

/** `text` (already lower-cased, as the search text is) occurs in the item's search text. */
export function searchTextMatch(dialect: DialectName, table: SearchedTable, text: string, indexed: boolean): RawBuilder<SqlBool> {
  const column = sql.ref(`${table}.searchText`);
  if (dialect === 'sqlite' && indexed) {
    const fts = sql.table(`${table}_search`);
    return sql<SqlBool>`(${sql.ref(`${table}.id`)} in (select rowid from ${fts} where ${fts} match ${coveringTrigrams(text).join(' AND ')}) and instr(${column}, ${text}) > 0)`;
  }
  return sql<SqlBool>`${column} like ${likeContains(text)} escape '\\'`;
}
