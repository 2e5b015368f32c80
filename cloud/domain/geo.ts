const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in kilometres. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLng = rad(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Ids of one set are all strings (lockers) or all numbers (pickup points); ties go by id. */
export interface Located {
  id: string | number;
  lat: number | null;
  lng: number | null;
}
type Placed<T> = T & { lat: number; lng: number };

/** A degree of latitude is at least this long: a cheap lower bound of any distance. */
const KM_PER_DEGREE_LAT = (Math.PI / 180) * EARTH_RADIUS_KM;

/**
 * Places sorted by latitude, so that the nearest few to a point are found by sweeping outward
 * from its latitude and stopping once the latitude gap alone exceeds the farthest distance
 * kept: a page of 20 out of 10,000 lockers then measures a few hundred distances, not all.
 * Built once per set of places (the API caches it with the locker points).
 */
export class NearestIndex<T extends Located> {
  private readonly sorted: Array<Placed<T>>;
  private readonly lats: Float64Array;

  constructor(items: readonly T[]) {
    this.sorted = items.filter((i): i is Placed<T> => i.lat !== null && i.lng !== null).sort((a, b) => a.lat - b.lat);
    this.lats = Float64Array.from(this.sorted, (i) => i.lat);
  }

  /** How many places have coordinates (and pass `accept`). */
  count(accept?: (item: T) => boolean): number {
    if (!accept) return this.sorted.length;
    let n = 0;
    for (const i of this.sorted) if (accept(i)) n++;
    return n;
  }

  /** The `want` nearest places that pass `accept`, ordered by distance, ties by id. */
  nearest(lat: number, lng: number, want: number, accept?: (item: T) => boolean): Array<{ item: T; distance: number }> {
    const top: Array<{ item: T; distance: number }> = [];
    if (want <= 0) return top;
    const before = (d: number, id: T['id'], o: { item: T; distance: number }) =>
      d < o.distance || (d === o.distance && id < o.item.id);
    let hi = lowerBound(this.lats, lat);
    let lo = hi - 1;
    while (lo >= 0 || hi < this.lats.length) {
      const takeLow = hi >= this.lats.length || (lo >= 0 && lat - this.lats[lo] <= this.lats[hi] - lat);
      const at = takeLow ? lo-- : hi++;
      const bound = Math.abs(lat - this.lats[at]) * KM_PER_DEGREE_LAT;
      // Every place left on either side is at least this far: nothing can still enter the page.
      if (top.length === want && bound > top[want - 1].distance) break;
      const item = this.sorted[at];
      if (accept && !accept(item)) continue;
      const distance = haversineKm(lat, lng, item.lat, item.lng);
      if (top.length === want && !before(distance, item.id, top[want - 1])) continue;
      let pos = top.length === want ? want - 1 : top.length;
      while (pos > 0 && before(distance, item.id, top[pos - 1])) pos--;
      top.splice(pos, 0, { item, distance });
      if (top.length > want) top.pop();
    }
    return top;
  }
}

function lowerBound(xs: Float64Array, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Places ordered by distance from a point (ties by id), those without coordinates left out;
 * with a window, only that slice.
 */
export function nearest<T extends Located>(
  items: readonly T[] | NearestIndex<T>,
  lat: number,
  lng: number,
  window?: { offset: number; limit: number },
  accept?: (item: T) => boolean,
): { total: number; page: Array<{ item: T; distance: number }> } {
  const index = items instanceof NearestIndex ? items : new NearestIndex(items);
  const total = index.count(accept);
  const from = window?.offset ?? 0;
  const want = window ? Math.min(total, window.offset + window.limit) : total;
  return { total, page: index.nearest(lat, lng, want, accept).slice(from) };
}
