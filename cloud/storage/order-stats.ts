/**
 * Maintained per-company, per-status counters of active orders. Every write that changes an
 * order's status or amounts adjusts them in the same transaction, so list totals and
 * `aggregate._sum` are read in O(statuses) instead of scanning a million rows.
 */
import type { CloudOrderStatus } from '../domain/order-states.ts';
import { sql, type InsertQueryBuilder, type InsertResult } from 'kysely';
import type { Db } from './database.ts';
import { preparedWrite } from './prepared.ts';
import type { Database, LockerOrderTable } from './schema.ts';

export const MONEY_FIELDS = ['price', 'deliveryPrice', 'paidAmount', 'notPaidAmount', 'promoCodeAmount'] as const;
export type MoneyField = (typeof MONEY_FIELDS)[number];
export type Amounts = Record<MoneyField, number>;

export const amountsOf = (o: Pick<LockerOrderTable, MoneyField>): Amounts => ({
  price: o.price,
  deliveryPrice: o.deliveryPrice,
  paidAmount: o.paidAmount,
  notPaidAmount: o.notPaidAmount,
  promoCodeAmount: o.promoCodeAmount,
});

export async function addToStats(
  db: Db,
  companyId: string,
  status: CloudOrderStatus,
  count: number,
  amounts: Amounts,
): Promise<void> {
  await statsUpsert(db, companyId, status, count, ...MONEY_FIELDS.map((f) => amounts[f]));
}

/**
 * An active order changing status moves its count and amounts from one status's counters to
 * the other's, in one statement. Its two rows go in status order, so that two transactions
 * moving between the same statuses in opposite directions lock them in the same order
 * (PostgreSQL) and cannot deadlock on them.
 */
export async function moveInStats(
  db: Db,
  companyId: string,
  from: CloudOrderStatus,
  to: CloudOrderStatus,
  amounts: Amounts,
): Promise<void> {
  // Nothing moves, and one statement may not change a row twice (PostgreSQL).
  if (from === to) return;
  const rows = [
    [from, -1, negate(amounts)],
    [to, 1, amounts],
  ] as const;
  const sorted = from < to ? rows : [rows[1], rows[0]];
  await statsMove(
    db,
    ...sorted.flatMap(([status, count, a]) => [companyId, status, count, ...MONEY_FIELDS.map((f) => a[f])]),
  );
}

const ROW_MARKERS = 3 + MONEY_FIELDS.length;

/** Markers per row: company, status, count, then the money fields in MONEY_FIELDS' order. */
const statsRow = (companyId: unknown, status: unknown, count: unknown, money: unknown[]) => ({
  companyId: companyId as string,
  status: status as CloudOrderStatus,
  count: count as number,
  ...(Object.fromEntries(MONEY_FIELDS.map((f, i) => [f, money[i]])) as Amounts),
  version: 1,
});

const statsUpsert = preparedWrite<unknown[]>(ROW_MARKERS, (db: Db, companyId, status, count, ...money) =>
  addingOnConflict(db.insertInto('order_stats').values(statsRow(companyId, status, count, money))),
);

const statsMove = preparedWrite<unknown[]>(2 * ROW_MARKERS, (db: Db, ...m) =>
  addingOnConflict(
    db
      .insertInto('order_stats')
      .values([
        statsRow(m[0], m[1], m[2], m.slice(3, ROW_MARKERS)),
        statsRow(m[ROW_MARKERS], m[ROW_MARKERS + 1], m[ROW_MARKERS + 2], m.slice(ROW_MARKERS + 3)),
      ]),
  ),
);

/** An existing counter row is added to, not replaced. */
function addingOnConflict(insert: InsertQueryBuilder<Database, 'order_stats', InsertResult>) {
  return insert.onConflict((oc) =>
    oc.columns(['companyId', 'status']).doUpdateSet({
      version: sql`order_stats.version + 1`,
      count: sql`order_stats.count + excluded.count`,
      price: sql`order_stats.price + excluded.price`,
      deliveryPrice: sql`order_stats."deliveryPrice" + excluded."deliveryPrice"`,
      paidAmount: sql`order_stats."paidAmount" + excluded."paidAmount"`,
      notPaidAmount: sql`order_stats."notPaidAmount" + excluded."notPaidAmount"`,
      promoCodeAmount: sql`order_stats."promoCodeAmount" + excluded."promoCodeAmount"`,
    }),
  );
}

export const negate = (a: Amounts): Amounts => Object.fromEntries(MONEY_FIELDS.map((f) => [f, -a[f]])) as Amounts;

/** A company's counters (all statuses, or one), summed here: at most four small rows. */
export async function readStats(db: Db, companyId: string, status?: CloudOrderStatus) {
  let q = db.selectFrom('order_stats').selectAll().where('companyId', '=', companyId);
  if (status) q = q.where('status', '=', status);
  const rows = await q.execute();
  const amounts = Object.fromEntries(MONEY_FIELDS.map((f) => [f, 0])) as Amounts;
  let count = 0;
  const versions: Record<string, number> = {};
  for (const r of rows) {
    count += Number(r.count);
    for (const f of MONEY_FIELDS) amounts[f] += Number(r[f]);
    versions[r.status] = Number(r.version);
  }
  return { count, amounts, versions };
}

/** A company's counters row by row, by status (the operator's overview shows each). */
export function statsByStatusOf(db: Db, companyId: string) {
  return db
    .selectFrom('order_stats')
    .select(['status', 'count', 'notPaidAmount'])
    .where('companyId', '=', companyId)
    .orderBy('status')
    .execute();
}
