/**
 * Size-aware booking (issue 22), free of HTTP and storage: the inner dimensions of each cell
 * size, whether a parcel fits one, and how a locker's free cells cover the sized orders promised
 * to it. Sizes are the contract's (shared/mqtt CellSize), smallest first; the agent places a
 * sized order in a free cell of its size, else the next larger, never a smaller one
 * (locker-agent/controller.ts pickCell), and the capacity rule below counts the same way.
 */
import { CELL_SIZES, type CellSize } from '../../shared/mqtt/schemas.ts';

export { CELL_SIZES, type CellSize };

export interface SizeSpec {
  /** inner dimensions in millimetres (any order: they are compared sorted) */
  lengthMm: number;
  widthMm: number;
  heightMm: number;
  /** heaviest parcel the cell takes, in kilograms (the unit of an order's `weight`) */
  maxWeightKg: number;
}

/**
 * Inner dimensions when a locker sets none (the operator's `cell size-spec` overrides them per
 * locker): the common 380 × 640 mm locker column, with InPost-like heights, and a wide XL.
 */
export const DEFAULT_SIZE_SPECS: Readonly<Record<CellSize, SizeSpec>> = {
  S: { lengthMm: 640, widthMm: 380, heightMm: 80, maxWeightKg: 25 },
  M: { lengthMm: 640, widthMm: 380, heightMm: 190, maxWeightKg: 25 },
  L: { lengthMm: 640, widthMm: 380, heightMm: 410, maxWeightKg: 25 },
  XL: { lengthMm: 800, widthMm: 600, heightMm: 600, maxWeightKg: 30 },
};

/** Bounds of a parcel's dimensions as an order gives them (3 m a side is no locker parcel). */
export const DIMENSION_MAX_MM = 3000;

export interface ParcelDimensions {
  lengthMm: number;
  widthMm: number;
  heightMm: number;
}

const sorted = (d: ParcelDimensions) => [d.lengthMm, d.widthMm, d.heightMm].sort((a, b) => a - b);

/** A parcel fits when its sorted dimensions are each within the cell's sorted inner dimensions (turned any way). */
export function fits(parcel: ParcelDimensions, cell: ParcelDimensions): boolean {
  const p = sorted(parcel);
  const c = sorted(cell);
  return p.every((x, i) => x <= c[i]!);
}

export const sizeRank = (s: CellSize) => CELL_SIZES.indexOf(s);

export interface SizeRequest {
  /** the size asked for: it or larger */
  cellSize?: CellSize;
  dimensions?: ParcelDimensions;
  /** kilograms; 0 or absent: not checked */
  weight?: number;
}

/**
 * The sizes the parcel may go into, smallest first: from the size asked for (S when only
 * dimensions are given) up, those its dimensions and weight fit.
 */
export function fittingSizes(
  req: SizeRequest,
  specs: Readonly<Record<CellSize, SizeSpec>> = DEFAULT_SIZE_SPECS,
): CellSize[] {
  const from = req.cellSize ? sizeRank(req.cellSize) : 0;
  return CELL_SIZES.filter((s, i) => {
    if (i < from) return false;
    const spec = specs[s];
    if (req.dimensions && !fits(req.dimensions, spec)) return false;
    if (req.weight && req.weight > spec.maxWeightKg) return false;
    return true;
  });
}

export type SizeCounts = Record<CellSize, number>;
export const zeroCounts = (): SizeCounts => ({ S: 0, M: 0, L: 0, XL: 0 });

/**
 * Which size's free cells each promised order will take, as the agent takes them: an order's
 * own size first, the next larger when those are all taken. Smallest sizes are served first, so
 * small orders never push larger ones out. `capacity`: free cells per size (times the
 * overbooking ratio). Returns the cells promised per size and the orders left without a cell.
 */
export function allocate(capacity: SizeCounts, orders: SizeCounts): { promised: SizeCounts; unplaced: number } {
  const promised = zeroCounts();
  let carried = 0;
  for (const s of CELL_SIZES) {
    const want = carried + orders[s];
    promised[s] = Math.min(want, Math.max(capacity[s], 0));
    carried = want - promised[s];
  }
  return { promised, unplaced: carried };
}

/**
 * Free cells per size after the overbooking ratio (default 1: never promise more than exists).
 * A ratio above 1 counts that many more cells than are free, rounded down.
 */
export function withOverbooking(free: SizeCounts, ratio: number): SizeCounts {
  const out = zeroCounts();
  for (const s of CELL_SIZES) out[s] = Math.floor(free[s] * ratio + 1e-9);
  return out;
}

/** Reservations: how long a sized order holds its cell when `reserveUntil` is not given, and at most. */
export const DEFAULT_RESERVE_HOURS = 72;
export const MAX_RESERVE_DAYS = 14;
const HOUR_MS = 3_600_000;

export function defaultReserveUntil(now: Date): Date {
  return new Date(now.getTime() + DEFAULT_RESERVE_HOURS * HOUR_MS);
}

/** Why a requested `reserveUntil` is refused, or undefined when it is fine. */
export function reserveUntilProblem(until: Date, now: Date): string | undefined {
  if (until.getTime() <= now.getTime()) return 'reserveUntil must be in the future';
  if (until.getTime() > now.getTime() + MAX_RESERVE_DAYS * 24 * HOUR_MS)
    return `reserveUntil must be at most ${MAX_RESERVE_DAYS} days ahead`;
  return undefined;
}
