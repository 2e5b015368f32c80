/** Reads of lockers, their cells and boards. */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { haversineKm, nearest, NearestIndex } from '../domain/geo.ts';
import type { PostomatTable } from './schema.ts';
import { prepared } from './prepared.ts';
import { arrayBatches, KeysetBatches, LIST_BATCH, mapBatches, type Window } from './batches.ts';

export interface PostomatListFilter {
  ids?: string[];
  cityId?: string;
  districtId?: string;
  window?: Window;
  /** sort by distance from this point; `at` is now, by the caller's clock (the points are cached) */
  near?: { lat: number; lng: number; at: Date };
}

export type ListedPostomat = PostomatTable & { distance?: number };

export interface PostomatPage {
  total: number;
  /** the rows in list order, a batch at a time (batches.ts) */
  batches: AsyncIterable<ListedPostomat[]>;
}

/** Active lockers by title, or by distance when a point is given (then without those lacking coordinates). */
export async function listPostomats(db: Db, f: PostomatListFilter): Promise<PostomatPage> {
  let base = db.selectFrom('postomat').where('isActive', '=', 1);
  if (f.ids?.length) base = base.where('id', 'in', f.ids);
  if (f.cityId) base = base.where('cityId', '=', f.cityId);
  if (f.districtId) base = base.where('districtId', '=', f.districtId);

  if (f.near) {
    // Distances are computed here rather than in SQL: exact great-circle values, the same on
    // both databases, over a cached index of the points (see NearestIndex).
    const ids = f.ids?.length ? new Set(f.ids) : undefined;
    const filtered = ids || f.cityId || f.districtId;
    const accept = filtered
      ? (p: LocatedPostomat) =>
          (!ids || ids.has(p.id)) &&
          (!f.cityId || p.cityId === f.cityId) &&
          (!f.districtId || p.districtId === f.districtId)
      : undefined;
    const { total, page } = byDistance(await locatedPostomats(db, f.near.at), f.near, f.window, accept);
    return { total, batches: mapBatches(arrayBatches(page), (part) => rowsInDistanceOrder(db, part)) };
  }

  // (title, id) is unique, and the postomat_active_title index holds it: each batch is an index range.
  const batches = new KeysetBatches<PostomatTable>(({ after, offset, limit }) => {
    let q = base.selectAll();
    if (after) q = q.where((eb) => eb(eb.refTuple('title', 'id'), '>', eb.tuple(after.title, after.id)));
    q = q.orderBy('title').orderBy('id').limit(limit);
    return (offset ? q.offset(offset) : q).execute();
  }, f.window);
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { total: Number(count.n), batches };
}

type Ranked = { item: LocatedPostomat; distance: number };

/**
 * The window of located lockers by distance. NearestIndex finds a page by sweeping outward and
 * keeps it sorted by insertion: right for a page, quadratic for thousands (the whole list of
 * 10,000 took 100-400 ms in one piece). Past a batch the candidates are sorted whole instead:
 * the same order (distance, then id) in O(n log n).
 */
function byDistance(
  points: PointCache,
  near: { lat: number; lng: number },
  window: Window | undefined,
  accept?: (p: LocatedPostomat) => boolean,
): { total: number; page: Ranked[] } {
  const from = window?.offset ?? 0;
  if (window && from + window.limit <= LIST_BATCH) return nearest(points.index, near.lat, near.lng, window, accept);
  const all: Ranked[] = [];
  for (const item of points.byId.values()) {
    if (!accept || accept(item)) all.push({ item, distance: haversineKm(near.lat, near.lng, item.lat, item.lng) });
  }
  all.sort((a, b) => a.distance - b.distance || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0));
  return { total: all.length, page: window ? all.slice(from, from + window.limit) : all };
}

/** The rows of a batch of ranked lockers, in their order, each with its distance (a locker deleted meanwhile is left out). */
async function rowsInDistanceOrder(db: Db, part: Ranked[]): Promise<ListedPostomat[]> {
  const rows = await db
    .selectFrom('postomat')
    .selectAll()
    .where(
      'id',
      'in',
      part.map((p) => p.item.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: ListedPostomat[] = [];
  for (const p of part) {
    const row = byId.get(p.item.id);
    if (row) out.push({ ...row, distance: p.distance });
  }
  return out;
}

interface LocatedPostomat {
  id: string;
  lat: number;
  lng: number;
  cityId: string | null;
  districtId: string | null;
}

export const POINTS_REFRESH_MS = 2_000;
/** Changes stamped by a process whose clock runs behind ours are still caught. */
const CLOCK_SKEW_MS = 60_000;

interface PointCache {
  byId: Map<string, LocatedPostomat>;
  index: NearestIndex<LocatedPostomat>;
  /** when the last read started (this process's clock) */
  readFrom: number;
  refreshedAt: number;
  refreshing?: Promise<void>;
}
const pointCaches = new WeakMap<Db, PointCache>();

/**
 * Active lockers with coordinates. Distance sorting needs every candidate point, and reading
 * 10,000 rows costs ~20 ms on SQLite, during which better-sqlite3 holds the event loop: so
 * the points are read once, and then every two seconds only the lockers whose updatedAt moved
 * (an index range scan). A locker moved or switched off shows in distance lists within ~2 s.
 */
async function locatedPostomats(db: Db, at: Date): Promise<PointCache> {
  let cache = pointCaches.get(db);
  const now = at.getTime();
  if (!cache) {
    const rows = await db
      .selectFrom('postomat')
      .select(['id', 'lat', 'lng', 'cityId', 'districtId', 'isActive'])
      .execute();
    cache = { byId: new Map(), index: new NearestIndex([]), readFrom: now, refreshedAt: now };
    applyPoints(cache, rows);
    pointCaches.set(db, cache);
  } else if (now - cache.refreshedAt >= POINTS_REFRESH_MS && !cache.refreshing) {
    const c = cache;
    // Everything stamped since the previous read began, with a margin for clock skew.
    const since = new Date(c.readFrom - CLOCK_SKEW_MS).toISOString();
    c.readFrom = now;
    c.refreshing = db
      .selectFrom('postomat')
      .select(['id', 'lat', 'lng', 'cityId', 'districtId', 'isActive'])
      .where('updatedAt', '>=', since)
      .execute()
      .then((rows) => applyPoints(c, rows))
      .finally(() => {
        c.refreshedAt = now;
        c.refreshing = undefined;
      });
    await c.refreshing;
  }
  return cache;
}

function applyPoints(
  cache: PointCache,
  rows: Array<{
    id: string;
    lat: number | null;
    lng: number | null;
    cityId: string | null;
    districtId: string | null;
    isActive: number;
  }>,
) {
  if (!rows.length) return;
  for (const r of rows) {
    if (r.isActive === 1 && r.lat !== null && r.lng !== null)
      cache.byId.set(r.id, { id: r.id, lat: r.lat, lng: r.lng, cityId: r.cityId, districtId: r.districtId });
    else cache.byId.delete(r.id);
  }
  cache.index = new NearestIndex([...cache.byId.values()]);
}

export function cellsOf(db: Db, postomatId: string) {
  return db.selectFrom('cell').selectAll().where('postomatId', '=', postomatId).orderBy('number').execute();
}

export function boardsOf(db: Db, postomatId: string) {
  return db.selectFrom('board').selectAll().where('postomatId', '=', postomatId).orderBy('address').execute();
}

/** One locker, active or not. */
export function postomatById(db: Db, id: string) {
  return db.selectFrom('postomat').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One locker by the short id printed on it and in its map link, active or not. */
export function postomatByShortId(db: Db, shortId: string) {
  return db.selectFrom('postomat').selectAll().where('shortId', '=', shortId).executeTakeFirst();
}

/** The locker's id if it is active. */
export async function activePostomatId(db: Db, id: string): Promise<{ id: string } | undefined> {
  return (await activePostomat(db, id))[0];
}

const activePostomat = prepared<[id: string], { id: string }>(1, (db: Db, id) =>
  db.selectFrom('postomat').select('id').where('id', '=', id).where('isActive', '=', sql.lit(1)),
);

/** The locker's id if it exists, active or not. */
export function existingPostomatId(db: Db, id: string) {
  return db.selectFrom('postomat').select('id').where('id', '=', id).executeTakeFirst();
}

/**
 * Locks the locker's row until the transaction ends (PostgreSQL only). FOR NO KEY UPDATE: orders
 * inserting beside it, which only check the key, are not held up.
 */
export async function lockPostomatRow(trx: Db, id: string): Promise<void> {
  await trx.selectFrom('postomat').select('id').where('id', '=', id).forNoKeyUpdate().execute();
}

/** The locker holding a short id, if any. */
export function postomatWithShortId(db: Db, shortId: string) {
  return db.selectFrom('postomat').select('id').where('shortId', '=', shortId).executeTakeFirst();
}

/** The highest incremental id given so far, 0 when there is no locker. */
export async function highestIncrementalId(db: Db): Promise<number> {
  const max = await db
    .selectFrom('postomat')
    .select((eb) => eb.fn.max<number>('incrementalid').as('m'))
    .executeTakeFirst();
  return Number(max?.m ?? 0);
}

export async function insertPostomatRow(db: Db, row: PostomatTable): Promise<void> {
  await db.insertInto('postomat').values(row).execute();
}

/** Every locker, active or not, by title (of one city when given). */
export function allPostomats(db: Db, filter: { cityId?: string } = {}) {
  let q = db.selectFrom('postomat').selectAll();
  if (filter.cityId) q = q.where('cityId', '=', filter.cityId);
  return q.orderBy('title').orderBy('id').execute();
}

export async function updatePostomatRow(db: Db, id: string, set: Partial<PostomatTable>): Promise<void> {
  await db.updateTable('postomat').set(set).where('id', '=', id).execute();
}

/** Whether the locker was there to take its new agent password hash. */
export async function setAgentSecretHash(db: Db, id: string, hash: string, at: string): Promise<boolean> {
  const res = await db
    .updateTable('postomat')
    .set({ agentSecretHash: hash, updatedAt: at })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The locker's id, short id and title, as staff see them beside an order. */
export function postomatSummary(db: Db, id: string) {
  return db.selectFrom('postomat').select(['id', 'shortId', 'title']).where('id', '=', id).executeTakeFirst();
}
