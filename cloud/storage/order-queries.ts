/** Reads of locker orders for the Locker API: pages, single orders, codes and nested objects. */
import { dialectOf, type Db } from './database.ts';
import { MONEY_FIELDS, readStats, type Amounts } from './order-stats.ts';
import type { LockerCompanyTable, LockerOrderTable } from './schema.ts';
import { sql, type Selectable } from 'kysely';
import { prepared } from './prepared.ts';
import { lockerSubscriptionsJson, parseLiveSubscriptions, type LiveSubscription } from './webhook-event-queries.ts';
import { groupBy, KeysetBatches } from './batches.ts';
import { noLiveCodes, type LiveCodes } from '../domain/codes.ts';
import { CODE_TYPES, type CloudOrderStatus } from '../domain/order-states.ts';

export interface OrderListFilter {
  companyId: string;
  status?: CloudOrderStatus;
  limit: number;
  offset: number;
  now: Date;
}

/**
 * A page of a company's active orders, newest first, with the totals and sums of its counters.
 * The spec sets no maximum page size: the rows come in keyset batches (batches.ts) along
 * (createdAt, id), the order of the company's list indexes, so a page of one batch is one
 * statement and a page of 100,000 rows is read a batch at a time.
 */
export async function listOrders(db: Db, f: OrderListFilter) {
  let q = db.selectFrom('locker_order').selectAll().where('companyId', '=', f.companyId).where('isActive', '=', 1);
  if (f.status) q = q.where('status', '=', f.status);
  // The counters are read first: their version must not be newer than what the expired
  // figure is computed from (see cachedExpiredAggregate).
  const stats = await readStats(db, f.companyId, f.status);
  const batches = new KeysetBatches<LockerOrderTable>(
    ({ after, offset, limit }) => {
      let page = q;
      if (after)
        page = page.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      page = page.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit);
      return (offset ? page.offset(offset) : page).execute();
    },
    { limit: f.limit, offset: f.offset },
  );
  const expired =
    f.status && f.status !== 'DELIVERED'
      ? emptyExpired()
      : await cachedExpiredAggregate(db, f.companyId, f.now, stats.versions.DELIVERED ?? 0);
  return { batches, total: stats.count, sums: stats.amounts, expired };
}

type Expired = Awaited<ReturnType<typeof expiredAggregate>>;
const expiredCache = new WeakMap<
  Db,
  Map<string, { version: number; computedAt: number; validUntil: number; value: Expired }>
>();

/**
 * The expired aggregate scans every expired DELIVERED order of a company (up to one per
 * occupied cell). Its value can change only when the company's DELIVERED orders change —
 * their counters' version moves — or when the clock passes the next end of a storage period.
 * Until either happens the cached value is exact, on any number of cloud processes.
 */
async function cachedExpiredAggregate(
  db: Db,
  companyId: string,
  now: Date,
  deliveredVersion: number,
): Promise<Expired> {
  let perCompany = expiredCache.get(db);
  if (!perCompany) expiredCache.set(db, (perCompany = new Map()));
  const t = now.getTime();
  const hit = perCompany.get(companyId);
  if (hit && hit.version === deliveredVersion && t >= hit.computedAt && t < hit.validUntil) return hit.value;
  const [value, next] = await Promise.all([expiredAggregate(db, companyId, now), nextExpiry(db, companyId, now)]);
  perCompany.set(companyId, {
    version: deliveredVersion,
    computedAt: t,
    validUntil: next ? Date.parse(next) : Infinity,
    value,
  });
  return value;
}

async function nextExpiry(db: Db, companyId: string, now: Date): Promise<string | null> {
  const row = await db
    .selectFrom('locker_order')
    .select((eb) => eb.fn.min('endDateTime').as('next'))
    .where('companyId', '=', companyId)
    .where('status', '=', 'DELIVERED')
    .where('isActive', '=', 1)
    .where('endDateTime', '>=', now.toISOString())
    .executeTakeFirst();
  return (row?.next as string | null) ?? null;
}

const emptyExpired = () => ({ count: 0, amounts: Object.fromEntries(MONEY_FIELDS.map((m) => [m, 0])) as Amounts });

/** DELIVERED orders past their storage period, summed off the partial covering index. */
export async function expiredAggregate(db: Db, companyId: string, now: Date) {
  const row = await db
    .selectFrom('locker_order')
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      ...MONEY_FIELDS.map((m) => eb.fn.coalesce(eb.fn.sum<number>(m), sql<number>`0`).as(m)),
    ])
    .where('companyId', '=', companyId)
    .where('status', '=', 'DELIVERED')
    .where('isActive', '=', 1)
    .where('endDateTime', '<', now.toISOString())
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.count),
    amounts: Object.fromEntries(MONEY_FIELDS.map((m) => [m, Number((row as any)[m])])) as Amounts,
  };
}

export interface CodeRow {
  id: string;
  type: string;
  password: string;
  orderId: string;
  createdAt: string;
  updatedAt: string;
}

const orderById = prepared<[companyId: string, id: string], LockerOrderTable>(2, (db: Db, companyId, id) =>
  db.selectFrom('locker_order').selectAll().where('id', '=', id).where('companyId', '=', companyId),
);
const codeOfOrder = prepared<[orderId: string, type: string], CodeRow>(2, (db: Db, orderId, type) =>
  db
    .selectFrom('order_code')
    .select(['id', 'type', 'password', 'orderId', 'createdAt', 'updatedAt'])
    .where('orderId', '=', orderId)
    .where('type', '=', type),
);

export async function findOrder(db: Db, companyId: string, id: string): Promise<LockerOrderTable | undefined> {
  return (await orderById(db, companyId, id))[0];
}

/**
 * One order of a company with its DOWN code (the hot path of GET /order/{id}), in one statement:
 * the code's four fields come back as one JSON array from a subquery on the covering code
 * index. On SQLite at a million orders this costs two thirds of four scalar subqueries (each is
 * its own index descent) and a third of two statements (each opens its own read transaction); the
 * equivalent LEFT JOIN runs several times slower there.
 */
const orderWithDownCode = prepared<
  [companyId: string, id: string],
  LockerOrderTable & { down: string | DownCode | null }
>(2, (db: Db, companyId, id) => {
  const jsonArray = sql.raw(dialectOf(db) === 'postgres' ? 'json_build_array' : 'json_array');
  return db
    .selectFrom('locker_order as o')
    .selectAll('o')
    .select((eb) =>
      eb
        .selectFrom('order_code as c')
        .select(
          sql<string>`${jsonArray}(${sql.ref('c.id')}, ${sql.ref('c.password')}, ${sql.ref('c.createdAt')}, ${sql.ref('c.updatedAt')})`.as(
            'code',
          ),
        )
        .whereRef('c.orderId', '=', 'o.id')
        .where('c.type', '=', 'DOWN')
        .as('down'),
    )
    .where('o.id', '=', id)
    .where('o.companyId', '=', companyId);
});
type DownCode = [id: string, password: string, createdAt: string, updatedAt: string];

export async function findOrderWithDownCode(
  db: Db,
  companyId: string,
  id: string,
): Promise<{ order: LockerOrderTable; down?: CodeRow } | undefined> {
  const [order] = await orderWithDownCode(db, companyId, id);
  if (!order) return undefined;
  if (order.down === null) return { order };
  // SQLite answers JSON as text; pg parses its json type itself.
  const [codeId, password, createdAt, updatedAt] =
    typeof order.down === 'string' ? (JSON.parse(order.down) as DownCode) : order.down;
  return { order, down: { id: codeId, type: 'DOWN', password, orderId: order.id, createdAt, updatedAt } };
}

export async function findCode(db: Db, orderId: string, type: string): Promise<CodeRow | undefined> {
  return (await codeOfOrder(db, orderId, type))[0];
}

/** Codes of the active, not-yet-final orders at a locker, by type (domain/codes.ts draws new ones apart from them). */
export async function liveCodesAt(db: Db, postomatId: string): Promise<LiveCodes> {
  // A literal `active = 1`, so SQLite matches the partial unique indexes that cover this read.
  const rows = await db
    .selectFrom('order_code')
    .select(['type', 'password'])
    .where('postomatId', '=', postomatId)
    .where('active', '=', sql.lit(1))
    .execute();
  const live = noLiveCodes();
  for (const r of rows) (live[r.type] as Set<string>).add(r.password);
  return live;
}

/** Which of `codes` a live code of the locker uses, of any type: a few index seeks, however many live codes it has. */
export async function liveCodesAmong(db: Db, postomatId: string, codes: readonly string[]): Promise<Set<string>> {
  if (!codes.length) return new Set();
  // Every type named, and `active = 1` literal: equality on each column of the partial unique
  // index (postomatId, type, password), so each code is a seek, not a walk of the locker's codes.
  const rows = await db
    .selectFrom('order_code')
    .select('password')
    .where('postomatId', '=', postomatId)
    .where('active', '=', sql.lit(1))
    .where('type', 'in', [...CODE_TYPES])
    .where('password', 'in', [...codes])
    .execute();
  return new Set(rows.map((r) => r.password));
}

/**
 * What a new order (or one redirected) needs to know of its locker and company, in one read
 * (on PostgreSQL, one round trip instead of four): the company's row, whether the locker is
 * active, how many of the company's orders there still wait for their parcel and, for a new
 * order, which of its first drawn codes (at most three, domain/codes.ts firstCodeDraw) the
 * locker's live codes use and the company's live webhook subscriptions (its order.created).
 */
export interface OrderTarget {
  company: Selectable<LockerCompanyTable>;
  postomatActive: boolean;
  pendingOrders: number;
  /** which of the drawn codes are live at the locker (empty when none were asked about) */
  liveDrawnCodes: Set<string>;
  /** with drawn codes (a creation): the company's live webhook subscriptions, for its order.created */
  lockerSubscriptions?: LiveSubscription[];
}

export async function orderTargetAt(
  db: Db,
  postomatId: string,
  companyId: string,
  drawnCodes: readonly string[] = [],
): Promise<OrderTarget> {
  if (drawnCodes.length > 3) throw new Error('orderTargetAt: at most three drawn codes');
  // Fewer than three codes repeat the first: the question stays one prepared statement.
  const [first = '', second = first, third = first] = drawnCodes;
  const [row] = drawnCodes.length
    ? await orderTargetDrawing(db, postomatId, companyId, first, second, third)
    : await orderTarget(db, postomatId, companyId);
  if (!row) throw new Error(`locker company ${companyId} not found`);
  const { targetPostomatId, pendingOrders, live0, live1, live2, lockerSubscriptions, ...company } =
    row as OrderTargetRow & LiveDrawn;
  const liveDrawnCodes = new Set([live0, live1, live2].filter((c): c is string => c != null));
  return {
    company,
    postomatActive: targetPostomatId != null,
    pendingOrders: Number(pendingOrders),
    liveDrawnCodes,
    ...(drawnCodes.length ? { lockerSubscriptions: parseLiveSubscriptions(lockerSubscriptions) } : {}),
  };
}

type OrderTargetRow = Selectable<LockerCompanyTable> & {
  targetPostomatId: string | null;
  pendingOrders: number | string;
};
type LiveDrawn = {
  live0?: string | null;
  live1?: string | null;
  live2?: string | null;
  /** JSON text on SQLite, parsed by the driver on PostgreSQL */
  lockerSubscriptions?: string | LiveSubscription[] | null;
};

function targetQuery(db: Db, postomatId: string, companyId: string) {
  return db
    .selectFrom('locker_company')
    .selectAll('locker_company')
    .select((eb) => [
      eb
        .selectFrom('postomat')
        .select('postomat.id')
        .where('postomat.id', '=', postomatId)
        .where('postomat.isActive', '=', sql.lit(1))
        .as('targetPostomatId'),
      // Literal status and flag: SQLite uses a partial index only when the query states its condition.
      eb
        .selectFrom('locker_order')
        .select((o) => o.fn.countAll<number>().as('n'))
        .where('locker_order.postomatId', '=', postomatId)
        .where('locker_order.companyId', '=', companyId)
        .where('locker_order.status', '=', sql.lit('CREATED'))
        .where('locker_order.isActive', '=', sql.lit(1))
        .as('pendingOrders'),
    ])
    .where('locker_company.id', '=', companyId);
}

const orderTarget = prepared<[postomatId: string, companyId: string], OrderTargetRow>(2, targetQuery);

/** The drawn code if a live code of the locker uses it, in any type (as liveCodesAmong: seeks on the partial unique index). */
const liveCode = (db: Db, postomatId: string, code: string) =>
  db
    .selectFrom('order_code')
    .select('order_code.password')
    .where('order_code.postomatId', '=', postomatId)
    .where('order_code.active', '=', sql.lit(1))
    .where('order_code.type', 'in', [...CODE_TYPES])
    .where('order_code.password', '=', code)
    .limit(1);

const orderTargetDrawing = prepared<
  [postomatId: string, companyId: string, first: string, second: string, third: string],
  OrderTargetRow & LiveDrawn
>(5, (db: Db, postomatId, companyId, first, second, third) =>
  targetQuery(db, postomatId, companyId).select([
    liveCode(db, postomatId, first).as('live0'),
    liveCode(db, postomatId, second).as('live1'),
    liveCode(db, postomatId, third).as('live2'),
    lockerSubscriptionsJson(db, companyId).as('lockerSubscriptions'),
  ]),
);

export interface OrderExtrasFlags {
  withToUser?: boolean;
  withCell?: boolean;
  withPostomat?: boolean;
  withCurrentStatus?: boolean;
  withStatuses?: boolean;
  withRent?: boolean;
}

/** Loads the nested objects asked for, for a whole page at once (one query per kind). */
export async function loadOrderExtras(
  db: Db,
  orders: LockerOrderTable[],
  flags: OrderExtrasFlags,
  knownDownCodes?: Map<string, CodeRow>,
) {
  const ids = orders.map((o) => o.id);
  const none = Promise.resolve([] as any[]);
  const uniq = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const cellIds = flags.withCell ? uniq(orders.map((o) => o.cellId)) : [];
  const [downCodes, users, cells, statuses] = await Promise.all([
    knownDownCodes
      ? Promise.resolve([...knownDownCodes.values()])
      : ids.length
        ? db
            .selectFrom('order_code')
            .select(['id', 'type', 'password', 'orderId', 'createdAt', 'updatedAt'])
            .where('orderId', 'in', ids)
            .where('type', '=', 'DOWN')
            .execute()
        : none,
    flags.withToUser && ids.length
      ? db
          .selectFrom('recipient')
          .selectAll()
          .where('id', 'in', uniq(orders.map((o) => o.toUserId)))
          .execute()
      : none,
    cellIds.length ? db.selectFrom('cell').selectAll().where('id', 'in', cellIds).execute() : none,
    (flags.withStatuses || flags.withCurrentStatus) && ids.length
      ? db
          .selectFrom('order_status')
          .selectAll()
          .where('orderId', 'in', ids)
          .orderBy('createdAt')
          .orderBy('id')
          .execute()
      : none,
  ]);
  const postomatIds = uniq([
    ...(flags.withPostomat ? orders.map((o) => o.postomatId) : []),
    ...cells.map((c: any) => c.postomatId),
  ]);
  const postomats = postomatIds.length
    ? await db.selectFrom('postomat').selectAll().where('id', 'in', postomatIds).execute()
    : [];
  return {
    downCodes: new Map(downCodes.map((c: any) => [c.orderId, c])),
    users: new Map(users.map((u: any) => [u.id, u])),
    cells: new Map(cells.map((c: any) => [c.id, c])),
    postomats: new Map(postomats.map((p) => [p.id, p])),
    statuses: groupBy(statuses as Array<{ id: string; orderId: string }>, (s) => s.orderId),
  };
}
