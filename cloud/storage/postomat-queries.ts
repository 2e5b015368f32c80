/** Reads of lockers, their cells and boards. */
import type { Db } from './database.ts';
import { nearest, NearestIndex } from '../domain/geo.ts';
import type { PostomatTable } from './schema.ts';

export interface PostomatListFilter {
  ids?: string[];
  cityId?: string;
  districtId?: string;
  window?: { limit: number; offset: number };
  near?: { lat: number; lng: number };
}

/** Active lockers by title, or by distance when a point is given (then without those lacking coordinates). */
export async function listPostomats(db: Db, f: PostomatListFilter): Promise<{ total: number; rows: Array<PostomatTable & { distance?: number }> }> {
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
      ? (p: LocatedPostomat) => (!ids || ids.has(p.id)) && (!f.cityId || p.cityId === f.cityId) && (!f.districtId || p.districtId === f.districtId)
      : undefined;
    const { total, page } = nearest(await locatedPostomats(db), f.near.lat, f.near.lng, f.window, accept);
    const rows = page.length ? await db.selectFrom('postomat').selectAll().where('id', 'in', page.map((p) => p.item.id)).execute() : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { total, rows: page.map((p) => ({ ...byId.get(p.item.id)!, distance: p.distance })) };
  }

  let q = base.selectAll().orderBy('title').orderBy('id');
  if (f.window) q = q.limit(f.window.limit).offset(f.window.offset);
  const [rows, count] = await Promise.all([
    q.execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.n), rows };
}

interface LocatedPostomat { id: string; lat: number; lng: number; cityId: string | null; districtId: string | null }

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
async function locatedPostomats(db: Db): Promise<NearestIndex<LocatedPostomat>> {
  let cache = pointCaches.get(db);
  const now = Date.now();
  if (!cache) {
    const rows = await db.selectFrom('postomat').select(['id', 'lat', 'lng', 'cityId', 'districtId', 'isActive']).execute();
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
        c.refreshedAt = Date.now();
        c.refreshing = undefined;
      });
    await c.refreshing;
  }
  return cache.index;
}

function applyPoints(cache: PointCache, rows: Array<{ id: string; lat: number | null; lng: number | null; cityId: string | null; districtId: string | null; isActive: number }>) {
  if (!rows.length) return;
  for (const r of rows) {
    if (r.isActive === 1 && r.lat !== null && r.lng !== null) cache.byId.set(r.id, { id: r.id, lat: r.lat, lng: r.lng, cityId: r.cityId, districtId: r.districtId });
    else cache.byId.delete(r.id);
  }
  cache.index = new NearestIndex([...cache.byId.values()]);
}

/** Cells that are active and hold no parcel of a current order. */
export function freeCells(db: Db, postomatIds: string[]) {
  if (!postomatIds.length) return Promise.resolve([]);
  return db
    .selectFrom('cell')
    .selectAll()
    .where('postomatId', 'in', postomatIds)
    .where('isActive', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('locker_order as o').select('o.id').whereRef('o.cellId', '=', 'cell.id').where('o.status', '=', 'DELIVERED'))),
    )
    .orderBy('postomatId')
    .orderBy('number')
    .execute();
}

export function cellsOf(db: Db, postomatId: string) {
  return db.selectFrom('cell').selectAll().where('postomatId', '=', postomatId).orderBy('number').execute();
}

export function boardsOf(db: Db, postomatId: string) {
  return db.selectFrom('board').selectAll().where('postomatId', '=', postomatId).orderBy('address').execute();
}
