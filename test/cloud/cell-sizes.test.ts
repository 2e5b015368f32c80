/** The rules of size-aware booking (issue 22), free of storage: fitting, and how free cells cover promises. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  allocate,
  fits,
  fittingSizes,
  reserveUntilProblem,
  withOverbooking,
  DEFAULT_SIZE_SPECS,
} from '../../cloud/domain/cell-sizes.ts';
import { availabilityOf } from '../../cloud/services/cell-capacity.ts';
import { canTransition } from '../../cloud/domain/order-states.ts';

const counts = (S: number, M: number, L: number, XL: number) => ({ S, M, L, XL });

describe('cell sizes', () => {
  it('a parcel fits when its sorted dimensions fit the sorted inner ones, turned any way', () => {
    assert.equal(fits({ lengthMm: 80, widthMm: 640, heightMm: 380 }, DEFAULT_SIZE_SPECS.S), true);
    assert.equal(fits({ lengthMm: 81, widthMm: 100, heightMm: 100 }, DEFAULT_SIZE_SPECS.S), false);
    assert.equal(fits({ lengthMm: 641, widthMm: 10, heightMm: 10 }, DEFAULT_SIZE_SPECS.L), false);
    assert.equal(fits({ lengthMm: 641, widthMm: 10, heightMm: 10 }, DEFAULT_SIZE_SPECS.XL), true);
  });

  it('the sizes a parcel may take: from the size asked for up, by dimensions and weight', () => {
    assert.deepEqual(fittingSizes({ cellSize: 'M' }), ['M', 'L', 'XL']);
    assert.deepEqual(fittingSizes({ dimensions: { lengthMm: 300, widthMm: 200, heightMm: 150 } }), ['M', 'L', 'XL']);
    assert.deepEqual(fittingSizes({ cellSize: 'S', weight: 26 }), ['XL'], 'only XL takes 26 kg');
    assert.deepEqual(fittingSizes({ dimensions: { lengthMm: 900, widthMm: 10, heightMm: 10 } }), []);
  });

  it('promises take their own size, else the next larger, never a smaller one', () => {
    assert.deepEqual(allocate(counts(1, 1, 1, 0), counts(0, 2, 0, 0)), { promised: counts(0, 1, 1, 0), unplaced: 0 });
    assert.deepEqual(allocate(counts(3, 0, 0, 0), counts(0, 1, 0, 0)), { promised: counts(0, 0, 0, 0), unplaced: 1 });
    // Small orders first: an S order takes the S cell, the L order still finds its L.
    assert.deepEqual(allocate(counts(1, 0, 1, 0), counts(1, 0, 1, 0)), { promised: counts(1, 0, 1, 0), unplaced: 0 });
    assert.deepEqual(withOverbooking(counts(10, 3, 0, 1), 1.2), counts(12, 3, 0, 1));
  });

  it('availability never goes below 0, and orders left without a cell show as promised XL', () => {
    const rows = availabilityOf({ cells: counts(1, 1, 0, 0), free: counts(1, 0, 0, 0), orders: counts(0, 2, 0, 0) });
    assert.deepEqual(
      rows.map((r) => [r.size, r.promised, r.available]),
      [
        ['S', 0, 1],
        ['M', 0, 0],
        ['L', 0, 0],
        ['XL', 2, 0],
      ],
    );
  });

  it('reserveUntil: in the future, at most 14 days ahead', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    assert.match(reserveUntilProblem(now, now)!, /future/);
    assert.match(reserveUntilProblem(new Date('2026-01-15T00:00:01Z'), now)!, /14 days/);
    assert.equal(reserveUntilProblem(new Date('2026-01-15T00:00:00Z'), now), undefined);
  });

  it('EXPIRED is a cloud status: reached from CREATED, left only by a late placement', () => {
    assert.equal(canTransition('CREATED', 'EXPIRED'), true);
    assert.equal(canTransition('EXPIRED', 'DELIVERED'), true);
    assert.equal(canTransition('EXPIRED', 'COMPLETED'), false);
    assert.equal(canTransition('DELIVERED', 'EXPIRED'), false);
  });
});
