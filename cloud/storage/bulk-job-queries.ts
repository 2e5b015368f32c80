/**
 * The durable rewrite jobs (`bulk_job`) and the set-based statements they run: a batch of a
 * table's rows after a cursor, the cursor moved only if it is still where it was read (another
 * runner that moved it first wins), and one UPDATE for a whole batch. What a job rewrites, and
 * how each new value is computed, is in services/platform/bulk-rewrites.ts.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';

export type ItemTable = 'parcel' | 'cargo';
export type ColumnType = 'text' | 'integer';
export type ItemRow = Record<string, any> & { id: number };

export interface BulkJob {
  id: number;
  kind: string;
  targetId: number;
  phase: number;
  afterId: number;
}

/** The code names of these companies, oldest first, by company. */
export async function codeNamesByCompany(db: Db, companyIds: number[]) {
  const rows = companyIds.length
    ? await db
        .selectFrom('company_code')
        .select(['companyId', 'title', 'cargoTypeId'])
        .where('companyId', 'in', companyIds)
        .orderBy('id')
        .execute()
    : [];
  const byCompany = new Map<number, Array<{ title: string; cargoTypeId: number }>>();
  for (const r of rows) byCompany.set(r.companyId, [...(byCompany.get(r.companyId) ?? []), r]);
  return byCompany;
}

/** The titles of these companies, by id. */
export async function companyTitles(db: Db, companyIds: number[]) {
  const rows = companyIds.length
    ? await db.selectFrom('platform_company').select(['id', 'title']).where('id', 'in', companyIds).execute()
    : [];
  return new Map(rows.map((r) => [r.id, r.title]));
}

export async function isPickupPoint(db: Db, warehouseId: number): Promise<boolean> {
  const w = await db.selectFrom('warehouse').select('isPickupPoint').where('id', '=', warehouseId).executeTakeFirst();
  return w?.isPickupPoint === 1;
}

/** Whether any row of `table` has `by` = targetId. */
export async function anyItemWith(trx: Db, table: ItemTable, by: string, targetId: number): Promise<boolean> {
  const any = await trx
    .selectFrom(table)
    .select('id')
    .where(by as any, '=', targetId)
    .limit(1)
    .executeTakeFirst();
  return any !== undefined;
}

export async function insertBulkJob(trx: Db, kind: string, targetId: number, at: string): Promise<void> {
  await trx.insertInto('bulk_job').values({ kind, targetId, phase: 0, afterId: 0, createdAt: at }).execute();
}

/** The oldest pending job. */
export function firstBulkJob(db: Db) {
  return db.selectFrom('bulk_job').selectAll().orderBy('id').limit(1).executeTakeFirst();
}

export async function deleteBulkJob(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('bulk_job').where('id', '=', id).execute();
}

/** The next `batch` rows of `table` with `by` = targetId after the row id `afterId`, by id. */
export async function itemsAfter(
  trx: Db,
  table: ItemTable,
  columns: readonly string[],
  by: string,
  targetId: number,
  afterId: number,
  batch: number,
): Promise<ItemRow[]> {
  return (await trx
    .selectFrom(table)
    .select(['id', ...columns] as any)
    .where(by as any, '=', targetId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(batch)
    .execute()) as ItemRow[];
}

/**
 * Moves the job's cursor to `next`, or deletes the job when it is `'done'`, only if the cursor
 * is still where `job` read it; returns the rows moved (0: another runner moved it first).
 */
export function moveBulkJobCursor(
  trx: Db,
  job: BulkJob,
  next: { phase: number; afterId: number } | 'done',
): Promise<number> {
  return next === 'done'
    ? trx
        .deleteFrom('bulk_job')
        .where('id', '=', job.id)
        .where('phase', '=', job.phase)
        .where('afterId', '=', job.afterId)
        .executeTakeFirst()
        .then((r) => Number(r.numDeletedRows))
    : trx
        .updateTable('bulk_job')
        .set(next)
        .where('id', '=', job.id)
        .where('phase', '=', job.phase)
        .where('afterId', '=', job.afterId)
        .executeTakeFirst()
        .then((r) => Number(r.numUpdatedRows));
}

/**
 * One UPDATE for a whole batch: the new values as a VALUES list joined by id (both databases).
 * Kysely cannot type an update from a VALUES list, hence the `sql` template.
 */
export async function writeRows(
  trx: Db,
  table: string,
  writes: Readonly<Record<string, ColumnType>>,
  rows: Array<Record<string, string | number>>,
): Promise<void> {
  const columns = Object.keys(writes);
  const value = (v: string | number, type: ColumnType) =>
    type === 'integer' ? sql`cast(${v} as integer)` : sql`cast(${v} as text)`;
  const tuples = sql.join(
    rows.map((r) => sql`(${sql.join([sql`cast(${r.id} as integer)`, ...columns.map((c) => value(r[c], writes[c]))])})`),
  );
  const t = sql.table(table);
  const names = sql.join(columns.map((c) => sql.ref(c)));
  const sets = sql.join(columns.map((c) => sql`${sql.ref(c)} = v.${sql.ref(c)}`));
  await sql`with v(id, ${names}) as (values ${tuples}) update ${t} set ${sets} from v where ${t}.id = v.id`.execute(
    trx,
  );
}
