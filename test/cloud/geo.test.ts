import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { haversineKm, nearest } from '../../cloud/domain/geo.ts';

describe('distances', () => {
  it('haversine: Bishkek to Osh is about 300 km, a point to itself 0', () => {
    const d = haversineKm(42.8746, 74.5698, 40.5283, 72.7985);
    assert.ok(d > 290 && d < 310, String(d));
    assert.equal(haversineKm(1, 2, 1, 2), 0);
  });

  it('a window of the nearest equals the same slice of a full sort, ties broken by id', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
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
    for (const w of [{ offset: 0, limit: 20 }, { offset: 40, limit: 20 }, { offset: 2990, limit: 50 }, { offset: 0, limit: 5000 }]) {
      const got = nearest(items, 42.5, 72.5, w).page.map((p) => p.item.id);
      assert.deepEqual(got, full.page.slice(w.offset, w.offset + w.limit).map((p) => p.item.id), JSON.stringify(w));
    }
  });
});
