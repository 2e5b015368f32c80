const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in kilometres. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLng = rad(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

export interface Located { id: string; lat: number | null; lng: number | null }

/**
 * Places ordered by distance from a point (ties by id), those without coordinates left out.
 * With a window only the first `offset + limit` are ordered: a page of 20 out of 10,000
 * lockers then costs one pass over the distances instead of a full sort.
 */
export function nearest<T extends Located>(
  items: readonly T[],
  lat: number,
  lng: number,
  window?: { offset: number; limit: number },
): { total: number; page: Array<{ item: T; distance: number }> } {
  const located: T[] = [];
  const dist: number[] = [];
  for (const i of items) {
    if (i.lat === null || i.lng === null) continue;
    located.push(i);
    dist.push(haversineKm(lat, lng, i.lat, i.lng));
  }
  const before = (a: number, b: number) => dist[a] < dist[b] || (dist[a] === dist[b] && located[a].id < located[b].id);
  const want = window ? Math.min(located.length, window.offset + window.limit) : located.length;
  let order: number[];
  if (want * 8 < located.length) {
    // Keep the `want` best in a sorted array; most candidates fail the first comparison.
    order = [];
    for (let i = 0; i < located.length; i++) {
      if (order.length === want && !before(i, order[want - 1])) continue;
      let at = order.length === want ? want - 1 : order.length;
      while (at > 0 && before(i, order[at - 1])) at--;
      order.splice(at, 0, i);
      if (order.length > want) order.pop();
    }
  } else {
    order = located.map((_, i) => i).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0)).slice(0, want);
  }
  const from = window?.offset ?? 0;
  return { total: located.length, page: order.slice(from).map((i) => ({ item: located[i], distance: dist[i] })) };
}

/** Every place with coordinates, nearest first, each with its `distance` in km. */
export function byDistance<T extends Located>(items: readonly T[], lat: number, lng: number): Array<T & { distance: number }> {
  return nearest(items, lat, lng).page.map((p) => ({ ...p.item, distance: p.distance }));
}
