const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in kilometres. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLng = rad(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

export interface Located { lat: number | null; lng: number | null }

/** Sorts by distance from a point; places without coordinates are left out (no distance). */
export function byDistance<T extends Located & { id: string }>(items: T[], lat: number, lng: number): Array<T & { distance: number }> {
  return items
    .filter((i) => i.lat !== null && i.lng !== null)
    .map((i) => ({ ...i, distance: haversineKm(lat, lng, i.lat as number, i.lng as number) }))
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1));
}
