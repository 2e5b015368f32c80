/** Reads of lockers, their cells and boards. */
import type { Db } from './database.ts';
import { nearest } from '../domain/geo.ts';
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
    // both databases, and ~10k candidate points cost about a millisecond.
    const ids = f.ids?.length ? new Set(f.ids) : undefined;
    const points = (await locatedPostomats(db)).filter(
      (p) => (!ids || ids.has(p.id)) && (!f.cityId || p.cityId === f.cityId) && (!f.districtId || p.districtId === f.districtId),
    );
    const { total, page } = nearest(points, f.near.lat, f.near.lng, f.window);
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
const POINTS_TTL_MS = 2_000;
const pointsCache = new WeakMap<Db, { until: number; points: Promise<LocatedPostomat[]> }>();

/**
 * Active lockers with coordinates, held for two seconds: distance sorting needs every
 * candidate point, and re-reading 10,000 rows per request cost more than the sort itself.
 * A locker moved or switched off shows in distance lists at most two seconds later.
 */
function locatedPostomats(db: Db): Promise<LocatedPostomat[]> {
  const now = Date.now();
  const hit = pointsCache.get(db);
  if (hit && hit.until > now) return hit.points;
  const points = db
    .selectFrom('postomat')
    .select(['id', 'lat', 'lng', 'cityId', 'districtId'])
    .where('isActive', '=', 1)
    .where('lat', 'is not', null)
    .where('lng', 'is not', null)
    .execute() as Promise<LocatedPostomat[]>;
  pointsCache.set(db, { until: now + POINTS_TTL_MS, points });
  points.catch(() => pointsCache.delete(db));
  return points;
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
