/**
 * A locker's capacity per cell size, live from its cells and orders (issue 22): what the
 * availability read shows, and the check a sized order passes to hold a cell until its
 * `reserveUntil`. Every read is a range of one locker's rows (storage/cell-occupancy.ts), so it
 * costs in proportion to that locker's cells.
 */
import { DomainError } from '../domain/errors.ts';
import {
  allocate,
  CELL_SIZES,
  DEFAULT_SIZE_SPECS,
  defaultReserveUntil,
  fittingSizes,
  withOverbooking,
  zeroCounts,
  type CellSize,
  type SizeCounts,
  type SizeRequest,
  type SizeSpec,
} from '../domain/cell-sizes.ts';
import { dialectOf, type Db } from '../storage/database.ts';
import { activeCellsBySize, occupiedCellsBySize, reservedSizesAt } from '../storage/cell-occupancy.ts';
import { sizeSpecsSetAt } from '../storage/cell-queries.ts';
import { lockPostomatRow } from '../storage/postomat-queries.ts';

export interface LockerCapacity {
  /** active cells per size */
  cells: SizeCounts;
  /** active cells holding no placed parcel */
  free: SizeCounts;
  /** pending sized orders per size asked for, whose reservation still runs */
  orders: SizeCounts;
}

const countsOf = (rows: Array<{ size?: string | null; n: unknown }>): SizeCounts => {
  const out = zeroCounts();
  for (const r of rows)
    if (r.size && (CELL_SIZES as readonly string[]).includes(r.size)) out[r.size as CellSize] += Number(r.n);
  return out;
};

export async function capacityAt(db: Db, postomatId: string, now: Date): Promise<LockerCapacity> {
  const cells = await activeCellsBySize(db, postomatId);
  const occupied = await occupiedCellsBySize(db, postomatId);
  const orders = await reservedSizesAt(db, postomatId, now.toISOString());
  const all = countsOf(cells);
  const taken = countsOf(occupied);
  const free = zeroCounts();
  for (const s of CELL_SIZES) free[s] = Math.max(all[s] - taken[s], 0);
  return { cells: all, free, orders: countsOf(orders) };
}

export interface SizeAvailability {
  size: CellSize;
  cells: number;
  free: number;
  promised: number;
  available: number;
}

/**
 * Per size: `promised` counts each pending sized order against the size whose cell it will
 * take (its own, else the next larger: allocate); `available` = free (times the overbooking
 * ratio) - promised, never below 0. Orders no free cell covers any more (cells switched off
 * meanwhile) count as promised in the largest size.
 */
export function availabilityOf(c: LockerCapacity, overbooking = 1): SizeAvailability[] {
  const capacity = withOverbooking(c.free, overbooking);
  const { promised, unplaced } = allocate(capacity, c.orders);
  promised.XL += unplaced;
  return CELL_SIZES.map((size) => ({
    size,
    cells: c.cells[size],
    free: c.free[size],
    promised: promised[size],
    available: Math.max(capacity[size] - promised[size], 0),
  }));
}

/** Inner dimensions per size at a locker: its own where the operator set them, the defaults otherwise. */
export async function sizeSpecsAt(db: Db, postomatId: string): Promise<Record<CellSize, SizeSpec>> {
  const rows = await sizeSpecsSetAt(db, postomatId);
  const specs = { ...DEFAULT_SIZE_SPECS };
  for (const r of rows) {
    if ((CELL_SIZES as readonly string[]).includes(r.size)) {
      specs[r.size as CellSize] = {
        lengthMm: Number(r.lengthMm),
        widthMm: Number(r.widthMm),
        heightMm: Number(r.heightMm),
        maxWeightKg: Number(r.maxWeightKg),
      };
    }
  }
  return specs;
}

export interface Reservation {
  cellSize: CellSize;
  reserveUntil: string;
}

/**
 * Holds a cell for a new sized order, inside its creation's transaction: the smallest size the
 * parcel fits, if the locker's free cells still cover every promise with this one added.
 * PARCEL_TOO_BIG: no active cell at the locker is of a size the parcel fits; NO_FITTING_CELL:
 * there are such cells, but none left free and unpromised.
 *
 * Concurrency: on PostgreSQL the locker's row is locked first (FOR NO KEY UPDATE: unsized orders
 * inserting beside it are not held up), so two sized creations at one locker count one after
 * the other and cannot both take the last cell; SQLite runs one write transaction at a time.
 */
export async function reserveCell(
  trx: Db,
  postomatId: string,
  request: SizeRequest & { reserveUntil?: Date },
  now: Date,
  overbooking = 1,
): Promise<Reservation> {
  if (dialectOf(trx) === 'postgres') {
    await lockPostomatRow(trx, postomatId);
  }
  const sizes = fittingSizes(request, await sizeSpecsAt(trx, postomatId));
  const capacity = await capacityAt(trx, postomatId, now);
  if (!sizes.some((s) => capacity.cells[s] > 0)) {
    throw new DomainError('PARCEL_TOO_BIG', `locker ${postomatId} has no cell the parcel fits`);
  }
  const cellSize = sizes[0]!;
  const orders = { ...capacity.orders, [cellSize]: capacity.orders[cellSize] + 1 };
  if (allocate(withOverbooking(capacity.free, overbooking), orders).unplaced > 0) {
    throw new DomainError(
      'NO_FITTING_CELL',
      `locker ${postomatId} has no free cell of size ${cellSize} or larger left`,
    );
  }
  return { cellSize, reserveUntil: (request.reserveUntil ?? defaultReserveUntil(now)).toISOString() };
}
