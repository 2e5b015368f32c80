import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { createTrigramIndex } from './trigram-index.ts';

/**
 * Trigram indexes over the `searchText` of parcels and cargo, so a substring search over a
 * million items reads an index instead of every row (storage/shipment-search.ts uses them):
 * an FTS5 trigram table kept in step by triggers on SQLite, a GIN pg_trgm index on PostgreSQL
 * (trigram-index.ts).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  for (const t of ['parcel', 'cargo'] as const) await createTrigramIndex(db, dialect, t);
}
