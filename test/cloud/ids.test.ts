import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isCuid } from '@paralleldrive/cuid2';
import { newId } from '../../cloud/storage/ids.ts';

describe('record ids', () => {
  it("have the cuid2 shape and pass cuid2's own check", () => {
    for (let i = 0; i < 1000; i++) {
      const id = newId();
      assert.match(id, /^[a-z][0-9a-z]{23}$/);
      assert.ok(isCuid(id), id);
    }
  });
  it('do not repeat', () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => newId()));
    assert.equal(ids.size, 50_000);
  });
  it('use every character of the alphabet after the first', () => {
    const seen = new Set([...Array.from({ length: 2000 }, () => newId().slice(1)).join('')]);
    assert.equal(seen.size, 36);
  });
});
