/**
 * Size-aware booking, Locker API side (issue 22): a locker's live availability per cell size,
 * and the check of an order's `reserveUntil` against the service's clock.
 */
import { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { validationError } from '../http/http-error.ts';
import { reserveUntilProblem } from '../domain/cell-sizes.ts';
import { CellSize } from '../../shared/mqtt/schemas.ts';
import { IdParams } from './schemas.ts';
import { postomatAvailability } from './postomat-operations.ts';
import { isoTime } from './responses.ts';

const count = (description: string) => z.int().min(0).meta({ description });

export const SizeAvailability = z.object({
  size: CellSize,
  cells: count('active cells of this size'),
  free: count('active cells of this size holding no parcel'),
  promised: count(
    'cells of this size held for pending sized orders (an order takes its own size, or the next larger when those are all held)',
  ),
  available: count(
    'free (times the overbooking ratio) - promised, never below 0: what new sized orders may still take',
  ),
  inner: z
    .object({
      lengthMm: z.int(),
      widthMm: z.int(),
      heightMm: z.int(),
      maxWeightKg: z.number(),
    })
    .meta({ description: 'inner dimensions and the heaviest parcel a cell of this size takes at this locker' }),
});

export const Availability = z
  .object({
    postomatId: z.string(),
    at: isoTime().meta({ description: 'when these counts were read (live, not cached)' }),
    sizes: z.array(SizeAvailability).meta({ description: 'every size, smallest first (S, M, L, XL)' }),
  })
  .meta({ id: 'Availability' });

export function sizingRoutes(r: Routes, deps: AppDeps): void {
  r.get(
    '/postomat/:id/availability',
    route({ params: IdParams, response: Availability }, ({ params }) =>
      postomatAvailability(deps.db, deps.clock, params.id, deps.config.overbookingRatio),
    ),
  );
}

/** A `reserveUntil` in the past or too far ahead is the request's fault: 400 in the spec's validation shape. */
export function checkReserveUntil(reserveUntil: string | undefined, now: Date): void {
  if (reserveUntil === undefined) return;
  const problem = reserveUntilProblem(new Date(reserveUntil), now);
  if (problem) throw validationError(`body/${problem}`);
}
