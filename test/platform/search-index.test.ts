import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../helpers/storage.ts';
import { shipmentsSuite } from '../helpers/shipments-world.ts';
import { qs } from '../helpers/integrations.ts';
import { updateClient } from '../../cloud/services/platform/clients.ts';
import { updatePlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { parseListSearch } from '../../cloud/domain/platform/list-search.ts';
import { selectShipments } from '../../cloud/storage/shipment-queries.ts';
import { coveringTrigrams, textMatch } from '../../cloud/storage/shipment-search.ts';
import { runOperator } from '../../cloud/operator/cli.ts';

describe('trigrams that cover a search text (SQLite)', () => {
  it('consecutive three-character pieces, the last one ending with the text, quoted for FTS5', () => {
    assert.deepEqual(coveringTrigrams('abc'), ['"abc"']);
    assert.deepEqual(coveringTrigrams('abcd'), ['"abc"', '"bcd"']);
    assert.deepEqual(coveringTrigrams('nazgul arykov'), ['"naz"', '"gul"', '" ar"', '"yko"', '"kov"']);
    assert.deepEqual(coveringTrigrams('a"b"c'), ['"a""b"', '"b""c"'], 'quotes doubled, pieces by character');
    assert.deepEqual(coveringTrigrams('абвгд'), ['"абв"', '"вгд"'], 'characters, not bytes');
    assert.deepEqual(coveringTrigrams('ababab'), ['"aba"', '"bab"']);
  });
});

for (const dialect of DIALECTS) {
  describe(`search indexes, migration 009_platform_search (${dialect.name})`, () => {
    const t = shipmentsSuite(dialect, '2026-03-07T09:00:00.000Z');
    const ids = async (table: 'parcel' | 'cargo', search: string) =>
      (await t.get(t.w.keys.logist.key, `/logistic-company/${table}/list${qs({ search, pageSize: 100 })}`)).body.data.map((x: any) => x.id).sort((a: number, b: number) => a - b);

    it('a new parcel is found at once', async () => {
      const p = await createParcel(t.cloud.storage.db, { companyId: t.w.logist.id, trackCode: 'FRESHLYMADE', weight: 1, currency: 'KGS', clientId: t.w.aibek.id }, t.clock.now());
      assert.deepEqual(await ids('parcel', 'freshly'), [p.id]);
    });

    it('a renamed client is found by the new name only, in parcels and cargo', async () => {
      const before = await ids('parcel', 'bermet');
      assert.ok(before.length > 0);
      await updateClient(t.cloud.storage.db, t.w.bermet.id, { name: 'Gulmira', phone: '+996700999999' }, t.clock.now());
      assert.deepEqual(await ids('parcel', 'bermet'), []);
      assert.deepEqual(await ids('parcel', 'gulmira'), before);
      assert.deepEqual(await ids('parcel', '700999'), before);
      assert.deepEqual(await ids('cargo', 'gulmira'), [t.s.cargo.packed, t.s.cargo.atDepot, t.s.cargo.lost].sort((a, b) => a - b));
    });

    it('a logistics company\'s new title is found in its cargo', async () => {
      await updatePlatformCompany(t.cloud.storage.db, t.w.logist.id, { title: 'Pamir Freight' }, t.clock.now());
      assert.equal((await ids('cargo', 'pamir')).length, 7);
      assert.deepEqual(await ids('cargo', 'silk road'), []);
    });

    it('npm run operator -- search optimize compacts both indexes, and the answers stay the same', async () => {
      const before = [await ids('parcel', 'kettle'), await ids('parcel', 'aibek'), await ids('cargo', '01kg00')];
      const r = await runOperator(['search', 'optimize', '--json'], {}, t.cloud.storage);
      assert.equal(r.code, 0, r.stderr);
      const done = JSON.parse(r.stdout);
      assert.deepEqual(done.map((d: any) => d.table), ['parcel', 'cargo']);
      assert.deepEqual(done.map((d: any) => d.index), dialect.name === 'sqlite' ? ['parcel_search', 'cargo_search'] : ['parcel_search_trgm', 'cargo_search_trgm']);
      assert.deepEqual([await ids('parcel', 'kettle'), await ids('parcel', 'aibek'), await ids('cargo', '01kg00')], before);
      assert.ok(before.every((x) => x.length > 0));
      assert.equal((await runOperator(['search', 'optimize', '--now'], {}, t.cloud.storage)).code, 2, 'unknown flags are refused');
    });

    it('the list search reads the trigram index', async () => {
      const db = t.cloud.storage.db;
      if (dialect.name === 'sqlite') {
        const q = await selectShipments(db, dialect.name, 'parcel', { companyId: t.w.logist.id, search: parseListSearch('kettle') });
        const list = q!.selectAll().orderBy('id', 'desc').limit(10).compile();
        const plan = (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${list.sql}`, [...list.parameters]))).rows.map((r) => r.detail).join(' | ');
        assert.match(plan, /parcel_search VIRTUAL TABLE INDEX/, plan);
        // With rank 1, FTS5 checks its index against the item rows it mirrors, and throws when they differ.
        await sql`insert into parcel_search(parcel_search, rank) values ('integrity-check', 1)`.execute(db);
        await sql`insert into cargo_search(cargo_search, rank) values ('integrity-check', 1)`.execute(db);
      } else {
        const idx = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = current_schema() and tablename in ('parcel', 'cargo') and indexname like '%search_trgm'`.execute(db);
        assert.equal(idx.rows.length, 2);
        for (const r of idx.rows) assert.match(r.indexdef, /USING gin \("searchText" public\.gin_trgm_ops\)/);
        // A handful of rows is cheaper to read otherwise: forbid the alternatives to see that the
        // index serves the very condition the list writes.
        const match = db.selectFrom('parcel').select('id').where(textMatch('postgres', 'parcel', 'kettle', true)).compile();
        await db.connection().execute(async (c) => {
          await sql`set enable_seqscan = off`.execute(c);
          const plan = (await c.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${match.sql}`, [...match.parameters]))).rows.map((r) => Object.values(r)[0]).join('\n');
          await sql`set enable_seqscan = on`.execute(c);
          assert.match(plan, /Bitmap Index Scan on parcel_search_trgm/, plan);
        });
      }
    });
  });
}
