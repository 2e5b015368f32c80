/**
 * The Locker API's locker reads, shared by both API families (platform-api/postomat.ts reads
 * lockers through them for a platform company with locker access): one implementation, one shape.
 */
import type { Db } from '../storage/database.ts';
import type { Clock } from '../../shared/clock.ts';
import { pageWindow } from '../http/query.ts';
import { ListAnswer } from '../http/stream-json.ts';
import {
  activePostomatId,
  boardsOf,
  cellsOf,
  listPostomats,
  postomatById,
  postomatByShortId,
  type ListedPostomat,
} from '../storage/postomat-queries.ts';
import { freeCells } from '../storage/cell-occupancy.ts';
import { cityById, citiesByIds, districtsByIds } from '../storage/geo-queries.ts';
import { DomainError } from '../domain/errors.ts';
import { availabilityOf, capacityAt, sizeSpecsAt } from '../services/cell-capacity.ts';
import { groupBy, mapBatches } from '../storage/batches.ts';
import type { PostomatListQuery, PostomatReadQuery } from './schemas.ts';
import { presentBoard, presentCell, presentCity, presentDistrict, presentPostomat } from './present.ts';
import type { z } from 'zod';

/** One locker (inactive ones too) with its city, cells and boards when asked; null when there is none. */
export async function postomatView(db: Db, id: string, flags: z.output<typeof PostomatReadQuery>) {
  const p = await postomatById(db, id);
  if (!p) return null;
  const out: Record<string, unknown> = presentPostomat(p);
  if (flags.withCity) {
    const city = p.cityId ? await cityById(db, p.cityId) : undefined;
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
    cityIds.length ? citiesByIds(db, cityIds) : [],
    districtIds.length ? districtsByIds(db, districtIds) : [],
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

/** A locker by its short id, as the public page shows it. */
export async function publicPostomat(db: Db, shortId: string) {
  const p = await postomatByShortId(db, shortId);
  if (!p) throw new DomainError('POSTOMAT_NOT_FOUND');
  return presentPostomat(p);
}

/** Where a locker stands, for its map link; a locker with no position is not found. */
export async function postomatMapPoint(db: Db, shortId: string): Promise<{ lat: number; lng: number }> {
  const p = await postomatByShortId(db, shortId);
  if (!p || p.lat === null || p.lng === null) throw new DomainError('POSTOMAT_NOT_FOUND');
  return { lat: p.lat, lng: p.lng };
}

/** An active locker's live availability per cell size (issue 22), with each size's inner dimensions there. */
export async function postomatAvailability(db: Db, clock: Clock, id: string, overbookingRatio: number | undefined) {
  const p = await activePostomatId(db, id);
  if (!p) throw new DomainError('POSTOMAT_NOT_FOUND');
  const now = clock.now();
  const [capacity, specs] = await Promise.all([capacityAt(db, p.id, now), sizeSpecsAt(db, p.id)]);
  const sizes = availabilityOf(capacity, overbookingRatio).map((a) => ({ ...a, inner: specs[a.size] }));
  return { postomatId: p.id, at: now.toISOString(), sizes };
}
