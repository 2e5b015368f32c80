/**
 * The one place where the list search differs by dialect (migration 009_platform_search):
 * - SQLite: the FTS5 trigram table answers a quoted phrase, which with the trigram tokenizer
 *   is exactly a substring match, from its index;
 * - PostgreSQL: `like '%…%'` on `searchText`, which the planner serves from the GIN trigram index.
 * Searches shorter than three characters have no trigram: both dialects scan with `like`,
 * within the rows the other conditions leave (the caller's clients).
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from './database.ts';

export type SearchedTable = 'parcel' | 'cargo';

/** A quoted FTS5 phrase: nothing inside is query syntax. */
const ftsPhrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** `%text%` with LIKE's wildcards and the escape character itself taken literally. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `text` (already lower-cased, as the search text is) occurs in the item's search text. */
export function searchTextMatch(dialect: DialectName, table: SearchedTable, text: string, indexed: boolean): RawBuilder<SqlBool> {
  if (dialect === 'sqlite' && indexed) {
    const fts = sql.table(`${table}_search`);
    return sql<SqlBool>`${sql.ref(`${table}.id`)} in (select rowid from ${fts} where ${fts} match ${ftsPhrase(text)})`;
  }
  return sql<SqlBool>`${sql.ref(`${table}.searchText`)} like ${likeContains(text)} escape '\\'`;
}
