import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { haversineKm, nearest, NearestIndex } from '../../cloud/domain/geo.ts';

describe('distances', () => {
  it('haversine: Bishkek to Osh is about 300 km, a point to itself 0', () => {
    const d = haversineKm(42.8746, 74.5698, 40.5283, 72.7985);
    assert.ok(d > 290 && d < 310, String(d));
    assert.equal(haversineKm(1, 2, 1, 2), 0);
  });

  it('a window of the nearest equals the same slice of a full sort, ties broken by id', () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const items = Array.from({ length: 3000 }, (_, i) => ({
      id: `p${String(i).padStart(5, '0')}`,
      lat: i % 97 === 0 ? null : 40 + Math.round(rnd() * 500) / 100, // coarse grid: ties happen
      lng: 70 + Math.round(rnd() * 500) / 100,
    }));
    const full = nearest(items, 42.5, 72.5);
    assert.equal(full.total, items.filter((i) => i.lat !== null).length);
    for (let k = 1; k < full.page.length; k++) {
      const [a, b] = [full.page[k - 1], full.page[k]];
      assert.ok(a.distance < b.distance || (a.distance === b.distance && a.item.id < b.item.id));
    }
    for (const w of [
      { offset: 0, limit: 20 },
      { offset: 40, limit: 20 },
      { offset: 2990, limit: 50 },
      { offset: 0, limit: 5000 },
    ]) {
      const got = nearest(items, 42.5, 72.5, w).page.map((p) => p.item.id);
      assert.deepEqual(
        got,
        full.page.slice(w.offset, w.offset + w.limit).map((p) => p.item.id),
        JSON.stringify(w),
      );
    }
  });

  it('a reused index with a filter equals a full sort of the places that pass it', () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({
      id: `q${String(i).padStart(4, '0')}`,
      lat: 40 + ((i * 37) % 500) / 100,
      lng: 70 + ((i * 91) % 500) / 100,
      city: i % 3,
    }));
    const index = new NearestIndex(items);
    const accept = (p: { city: number }) => p.city === 1;
    const expected = items
      .filter(accept)
      .map((p) => ({ id: p.id, d: haversineKm(44.9, 74.9, p.lat, p.lng) }))
      .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1));
    for (const [lat, lng] of [[44.9, 74.9]]) {
      const got = nearest(index, lat, lng, { offset: 10, limit: 15 }, accept);
      assert.equal(got.total, expected.length);
      assert.deepEqual(
        got.page.map((p) => p.item.id),
        expected.slice(10, 25).map((p) => p.id),
      );
    }
    // A point far outside the cloud of places: the sweep starts at one end and still finds them.
    assert.deepEqual(
      nearest(index, 10, 10, { offset: 0, limit: 3 }).page.map((p) => p.item.id),
      nearest(items, 10, 10)
        .page.slice(0, 3)
        .map((p) => p.item.id),
    );
  });
});
