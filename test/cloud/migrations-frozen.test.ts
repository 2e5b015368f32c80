/**
 * Migrations are frozen: each carries the logic it needs as it was that day, so a fresh install
 * and an upgraded one cannot differ once today's rules change. A migration may import kysely,
 * its siblings in migrations/ and the leaf module of database types, nothing of the live code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const DIR = path.resolve(import.meta.dirname, '../../cloud/storage/migrations');
const ALLOWED = [/^kysely$/, /^\.\/[\w-]+\.ts$/, /^\.\.\/db-types\.ts$/, /^\.\.\/column-types\.ts$/];

describe('migrations import no live code', () => {
  it('every import of every migration is kysely, a sibling or a type leaf', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length > 10, 'the migrations were found');
    const offending: string[] = [];
    for (const f of files) {
      for (const m of readFileSync(path.join(DIR, f), 'utf8').matchAll(
        /^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm,
      )) {
        if (!ALLOWED.some((re) => re.test(m[1]))) offending.push(`${f} imports ${m[1]}`);
      }
    }
    assert.deepEqual(offending, []);
  });
});
