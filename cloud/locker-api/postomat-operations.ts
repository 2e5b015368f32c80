/**
 * The Locker API's locker reads, shared by both API families (platform-api/postomat.ts reads
 * lockers through them for a platform company with locker access): one implementation, one shape.
 */
import type { Db } from '../storage/database.ts';
import type { Clock } from '../../shared/clock.ts';
import { pageWindow } from '../http/query.ts';
import { ListAnswer } from '../http/stream-json.ts';
import { boardsOf, cellsOf, listPostomats, type ListedPostomat } from '../storage/postomat-queries.ts';
import { freeCells } from '../storage/cell-occupancy.ts';
import { groupBy, mapBatches } from '../storage/batches.ts';
import type { PostomatListQuery, PostomatReadQuery } from './schemas.ts';
import { presentBoard, presentCell, presentCity, presentDistrict, presentPostomat } from './present.ts';
import type { z } from 'zod';

/** One locker (inactive ones too) with its city, cells and boards when asked; null when there is none. */
export async function postomatView(db: Db, id: string, flags: z.output<typeof PostomatReadQuery>) {
  const p = await db.selectFrom('postomat').selectAll().where('id', '=', id).executeTakeFirst();
  if (!p) return null;
  const out: Record<string, unknown> = presentPostomat(p);
  if (flags.withCity) {
    const city = p.cityId
      ? await db.selectFrom('city').selectAll().where('id', '=', p.cityId).executeTakeFirst()
      : undefined;
    out.city = city ? presentCity(city) : null;
  }
  if (flags.withCells || flags.withBoards) {
    const [cells, boards] = await Promise.all([cellsOf(db, p.id), boardsOf(db, p.id)]);
    if (flags.withCells) {
      const boardById = new Map(boards.map((b) => [b.id, presentBoard(b)]));
      out.cells = cells.map((c) => ({ ...presentCell(c), board: boardById.get(c.boardId) ?? null }));
    }
    if (flags.withBoards) {
      const cellsByBoard = groupBy(cells, (c) => c.boardId);
      out.boards = boards.map((b) => ({ ...presentBoard(b), cells: (cellsByBoard.get(b.id) ?? []).map(presentCell) }));
    }
  }
  return out;
}

type ListQuery = z.output<typeof PostomatListQuery>;

/**
 * Shared by the authenticated list, the public open-api list and the platform's locker list.
 * Without a page the spec returns every locker: the answer is read and written in batches.
 */
export async function postomatList(
  db: Db,
  clock: Clock,
  query: Partial<ListQuery> & Pick<ListQuery, 'withCity' | 'withDistrict'>,
): Promise<ListAnswer> {
  const near =
    query.latitude !== undefined && query.longitude !== undefined
      ? { lat: query.latitude, lng: query.longitude, at: clock.now() }
      : undefined;
  const { total, batches } = await listPostomats(db, {
    ids: query.ids,
    cityId: query.cityId,
    districtId: query.districtId,
    window: pageWindow(query),
    near,
  });
  const flags = { ...query, withFreeCells: query.withFreeCells && !near };
  return new ListAnswer(
    { total },
    mapBatches(batches, (rows) => decorate(db, rows, flags)),
  );
}

/** One batch of lockers with the nested objects asked for: one statement per kind, grouped by key once. */
async function decorate(
  db: Db,
  rows: ListedPostomat[],
  flags: { withCity?: boolean; withDistrict?: boolean; withFreeCells?: boolean },
) {
  const ids = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const cityIds = flags.withCity ? ids(rows.map((r) => r.cityId)) : [];
  const districtIds = flags.withDistrict ? ids(rows.map((r) => r.districtId)) : [];
  const [cities, districts, cells] = await Promise.all([
    cityIds.length ? db.selectFrom('city').selectAll().where('id', 'in', cityIds).execute() : [],
    districtIds.length ? db.selectFrom('district').selectAll().where('id', 'in', districtIds).execute() : [],
    flags.withFreeCells
      ? freeCells(
          db,
          rows.map((r) => r.id),
        )
      : [],
  ]);
  const cityById = new Map(cities.map((c) => [c.id, presentCity(c)]));
  const districtById = new Map(districts.map((d) => [d.id, presentDistrict(d)]));
  const cellsByPostomat = groupBy(cells, (c) => c.postomatId);
  return rows.map((row) => {
    const out: Record<string, unknown> = presentPostomat(row);
    if (flags.withCity) out.city = (row.cityId && cityById.get(row.cityId)) || null;
    if (flags.withDistrict) out.district = (row.districtId && districtById.get(row.districtId)) || null;
    if (flags.withFreeCells) out.cells = (cellsByPostomat.get(row.id) ?? []).map(presentCell);
    if (row.distance !== undefined) out.distance = row.distance;
    return out;
  });
}
