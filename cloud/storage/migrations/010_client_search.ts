import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { createTrigramIndex, dropTrigramIndex, type TrigramTable } from './trigram-index.ts';

const BATCH = 1000;

// The search-text and code-name rules as they were when this migration was written
// (domain/platform/search-text.ts, client-codes.ts): a migration is frozen, so a fresh install
// and an upgraded one build the same texts however those rules change later.
const join = (parts: Array<string | null | undefined>) =>
  parts
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .map((p) => p.trim().toLowerCase())
    .join('\n');
const parcelSearchText = (p: { trackCode: string; description: string | null }, codeNames: string[]) =>
  join([p.trackCode, p.description, ...codeNames]);
const cargoSearchText = (
  c: { description: string | null; tractorNumber: string | null },
  codeNames: string[],
  companyTitle: string,
) => join([c.description, ...codeNames, companyTitle, c.tractorNumber]);
const clientSearchText = (c: { name: string | null; phone: string | null }) => join([c.name, c.phone]);
function codeNamesFor(
  codes: ReadonlyArray<{ title: string; cargoTypeId: number }>,
  cargoTypeId: number | null,
): string[] {
  const matching = cargoTypeId === null ? [] : codes.filter((c) => c.cargoTypeId === cargoTypeId);
  return (matching.length ? matching : codes).map((c) => c.title);
}

/**
 * Each search fact where it lives (domain/platform/search-text.ts): a client's name and phone
 * move out of every one of its items' search text into the client's own, with its own trigram
 * index. A name is then indexed once instead of in each of the client's items, a search for it
 * reads a tenth of the doclists, and a rename rewrites one row.
 *
 * Every existing text is computed anew in JavaScript, in batches: SQLite's `lower()` folds only
 * ASCII and names are often Cyrillic. The item indexes are dropped while their texts are
 * rewritten and built once afterwards (on SQLite each rewritten row would otherwise be re-filed
 * by its trigger), as is the new client index.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('platform_client')
    .addColumn('searchText', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await rewrite(db, 'platform_client', ['name', 'phone'], (c) => clientSearchText(c));
  await createTrigramIndex(db, dialect, 'platform_client');

  const codes = new Map<number, Array<{ title: string; cargoTypeId: number }>>();
  for (const c of await db
    .selectFrom('company_code')
    .select(['companyId', 'title', 'cargoTypeId'])
    .orderBy('id')
    .execute()) {
    codes.set(c.companyId, [...(codes.get(c.companyId) ?? []), c]);
  }
  const titles = new Map<number, string>(
    (await db.selectFrom('platform_company').select(['id', 'title']).execute()).map((c) => [c.id, c.title]),
  );
  const namesOf = (i: { clientCompanyId: number | null; cargoTypeId: number | null }) =>
    codeNamesFor(codes.get(i.clientCompanyId ?? 0) ?? [], i.cargoTypeId);

  // Items without a client held no client parts: their texts stay as they are.
  await dropTrigramIndex(db, dialect, 'parcel');
  await rewrite(
    db,
    'parcel',
    ['trackCode', 'description', 'clientCompanyId', 'cargoTypeId'],
    (p) => parcelSearchText(p, namesOf(p)),
    true,
  );
  await createTrigramIndex(db, dialect, 'parcel');
  await dropTrigramIndex(db, dialect, 'cargo');
  await rewrite(
    db,
    'cargo',
    ['description', 'tractorNumber', 'clientCompanyId', 'cargoTypeId', 'companyId'],
    (c) => cargoSearchText(c, namesOf(c), titles.get(c.companyId) ?? ''),
    true,
  );
  await createTrigramIndex(db, dialect, 'cargo');

  // PostgreSQL estimates `like '%…%'` from the column's histogram: with the default 100 entries, a
  // name that happens to be one of them counts as 1% of the rows (1,000 clients instead of a
  // few dozen), and the planner reads every client instead of the trigram index. A finer
  // histogram bounds that guess at 0.1%. Every text has changed, so the statistics are taken anew.
  if (dialect === 'postgres') {
    for (const t of ['platform_client', 'parcel', 'cargo']) {
      await sql`alter table ${sql.table(t)} alter column "searchText" set statistics 1000`.execute(db);
      await sql`analyze ${sql.table(t)}`.execute(db);
    }
  }
}

/** Sets `searchText` of every row (of those with a client) to `text(row)`, a batch of rows per statement. */
async function rewrite(
  db: Kysely<any>,
  table: TrigramTable,
  columns: string[],
  text: (row: any) => string,
  withClient = false,
): Promise<void> {
  for (let after = 0; ; ) {
    let q = db
      .selectFrom(table)
      .select(['id', ...columns])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH);
    if (withClient) q = q.where('clientId', 'is not', null);
    const rows = await q.execute();
    if (!rows.length) return;
    const values = sql.join(rows.map((r) => sql`(cast(${r.id} as integer), ${text(r)})`));
    const t = sql.table(table);
    await sql`with v(id, "searchText") as (values ${values}) update ${t} set "searchText" = v."searchText" from v where ${t}.id = v.id`.execute(
      db,
    );
    after = rows.at(-1)!.id;
  }
}
