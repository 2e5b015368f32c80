/**
 * What a marketplace reads about places: pickup points (warehouses flagged isPickupPoint) and
 * the platform's cities. A marketplace sees the pickup points of its own and of the companies
 * it hands parcels to; not those of other marketplaces.
 */
import type { Db } from '../../storage/database.ts';
import { nearest } from '../../domain/geo.ts';
import { findActiveCountryId, findPlatformCity } from '../../storage/platform-directory-queries.ts';
import {
  locatedPickupPoints,
  pageOfPickupPoints,
  type PickupPoint,
  type PickupPointWhere,
} from '../../storage/warehouse-queries.ts';
import { partnerIdsOf } from './companies.ts';

export { findPickupPoint } from '../../storage/warehouse-queries.ts';
export {
  findPlatformCity,
  listPlatformCities,
  platformCitiesById,
  platformCountriesById,
} from '../../storage/platform-directory-queries.ts';

export async function pickupPointOwners(db: Db, marketId: number): Promise<number[]> {
  return [marketId, ...(await partnerIdsOf(db, marketId))];
}

export interface PickupPointFilter extends PickupPointWhere {
  window: { limit: number; offset: number };
  /** sort by distance from here; points without coordinates are left out */
  near?: { lat: number; lng: number };
}

/** Active pickup points by title, or by distance (each with `distance` in km). */
export async function listPickupPoints(
  db: Db,
  f: PickupPointFilter,
): Promise<{ total: number; rows: Array<PickupPoint & { distance?: number }> }> {
  if (f.near) {
    // A marketplace has tens or hundreds of points, not the lockers' ten thousand: sorted per request.
    const located = await locatedPickupPoints(db, f);
    const { total, page } = nearest(located, f.near.lat, f.near.lng, f.window);
    return { total, rows: page.map((p) => ({ ...p.item, distance: p.distance })) };
  }
  return pageOfPickupPoints(db, f, f.window);
}

/** The receiver's or sender's place: an active city of an active country; a problem per field, else none. */
export async function placeProblems(db: Db, who: string, place: { country: number; city: number }): Promise<string[]> {
  const [country, city] = await Promise.all([findActiveCountryId(db, place.country), findPlatformCity(db, place.city)]);
  const problems: string[] = [];
  if (!country) problems.push(`${who}/country must be the id of an active country`);
  if (city?.isActive !== 1) problems.push(`${who}/city must be the id of an active city`);
  else if (country && city.countryId !== place.country)
    problems.push(`${who}/city must be a city of country ${place.country}`);
  return problems;
}
