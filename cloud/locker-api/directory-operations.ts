/**
 * The Locker API's directory reads (countries, cities, districts), shared by both API families
 * (platform-api/postomat.ts reads cities through them): one implementation, one shape.
 */
import type { z } from 'zod';
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../storage/database.ts';
import { pageWindow } from '../http/query.ts';
import { ListAnswer } from '../http/stream-json.ts';
import { KeysetBatches, mapBatches, type Window } from '../storage/batches.ts';
import type { CityTable } from '../storage/schema.ts';
import type { CityListQuery, CityReadQuery } from './schemas.ts';
import { presentCity, presentCountry } from './present.ts';

/**
 * Active cities by title; shared with the platform's locker access (/integrations/postomat/city).
 * Without a page the spec returns them all: read and written in batches.
 */
export async function cityList(db: Db, query: z.output<typeof CityListQuery>): Promise<ListAnswer> {
  const base = db.selectFrom('city').where('isActive', '=', 1);
  const rows = byTitle<CityTable>(base, pageWindow(query));
  return new ListAnswer(
    { total: await countOf(base) },
    mapBatches(rows, async (part) => {
      if (!query.withCountry) return part.map(presentCity);
      const countries = await countriesById(
        db,
        part.map((c) => c.countryId),
      );
      return part.map((c) => ({ ...presentCity(c), country: countries.get(c.countryId) ?? null }));
    }),
  );
}

/** One city (inactive ones too), or null when there is none. */
export async function cityView(db: Db, id: string, query: z.output<typeof CityReadQuery>) {
  const city = await db.selectFrom('city').selectAll().where('id', '=', id).executeTakeFirst();
  if (!city) return null;
  if (!query.withCountry) return presentCity(city);
  const countries = await countriesById(db, [city.countryId]);
  return { ...presentCity(city), country: countries.get(city.countryId) ?? null };
}

async function countriesById(db: Db, ids: string[]) {
  const unique = [...new Set(ids)];
  const rows = unique.length ? await db.selectFrom('country').selectAll().where('id', 'in', unique).execute() : [];
  return new Map(rows.map((c) => [c.id, presentCountry(c)]));
}

/** A filtered directory query (country, city or district: each has a title and an id). */
type Directory = SelectQueryBuilder<any, any, {}>;

/** Its rows by title, then id, in keyset batches within the window. */
export function byTitle<R extends { id: string; title: string }>(base: Directory, window?: Window): KeysetBatches<R> {
  return new KeysetBatches<R>(({ after, offset, limit }) => {
    let q = base.selectAll();
    if (after) q = q.where((eb) => eb(eb.refTuple('title', 'id'), '>', eb.tuple(after.title, after.id)));
    q = q.orderBy('title').orderBy('id').limit(limit);
    return (offset ? q.offset(offset) : q).execute() as Promise<R[]>;
  }, window);
}

export async function countOf(base: Directory): Promise<number> {
  const row = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
