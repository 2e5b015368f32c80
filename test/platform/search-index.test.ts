import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../helpers/storage.ts';
import { shipmentsSuite } from '../helpers/shipments-world.ts';
import { qs } from '../helpers/integrations.ts';
import { createClient, updateClient } from '../../cloud/services/platform/clients.ts';
import { updatePlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { createCargo } from '../../cloud/services/platform/cargo.ts';
import { parseListSearch } from '../../cloud/domain/platform/list-search.ts';
import { selectShipments } from '../../cloud/storage/shipment-queries.ts';
import { coveringTrigrams } from '../../cloud/storage/shipment-search.ts';
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
      (await t.get(t.w.keys.logist.key, `/logistic-company/${table}/list${qs({ search, pageSize: 100 })}`)).body.data
        .map((x: any) => x.id)
        .sort((a: number, b: number) => a - b);

    it('a new parcel is found at once', async () => {
      const p = await createParcel(
        t.cloud.storage.db,
        { companyId: t.w.logist.id, trackCode: 'FRESHLYMADE', weight: 1, currency: 'KGS', clientId: t.w.aibek.id },
        t.clock.now(),
      );
      assert.deepEqual(await ids('parcel', 'freshly'), [p.id]);
    });

    it('a renamed client is found by the new name only, in parcels and cargo, at once and without rewriting them', async () => {
      const db = t.cloud.storage.db;
      const items = async () => [
        await db.selectFrom('parcel').selectAll().where('clientId', '=', t.w.bermet.id).orderBy('id').execute(),
        await db.selectFrom('cargo').selectAll().where('clientId', '=', t.w.bermet.id).orderBy('id').execute(),
      ];
      const rows = await items();
      const before = await ids('parcel', 'bermet');
      assert.ok(before.length > 0);
      await updateClient(db, t.w.bermet.id, { name: 'Gulmira', phone: '+996700999999' }, t.clock.now());
      assert.deepEqual(await ids('parcel', 'bermet'), []);
      assert.deepEqual(await ids('parcel', 'gulmira'), before);
      assert.deepEqual(await ids('parcel', '700999'), before);
      assert.deepEqual(await ids('parcel', 'gu'), before, "a short search reads the client's text too");
      assert.deepEqual(
        await ids('cargo', 'gulmira'),
        [t.s.cargo.packed, t.s.cargo.atDepot, t.s.cargo.lost].sort((a, b) => a - b),
      );
      assert.deepEqual(await items(), rows, 'no parcel or cargo row was written');
    });

    it("a logistics company's new title is found in its cargo", async () => {
      await updatePlatformCompany(t.cloud.storage.db, t.w.logist.id, { title: 'Pamir Freight' }, t.clock.now());
      assert.equal((await ids('cargo', 'pamir')).length, 7);
      assert.deepEqual(await ids('cargo', 'silk road'), []);
    });

    it('npm run operator -- search optimize compacts the three indexes, and the answers stay the same', async () => {
      const before = [await ids('parcel', 'kettle'), await ids('parcel', 'aibek'), await ids('cargo', '01kg00')];
      const r = await runOperator(['search', 'optimize', '--json'], {}, t.cloud.storage);
      assert.equal(r.code, 0, r.stderr);
      const done = JSON.parse(r.stdout);
      assert.deepEqual(
        done.map((d: any) => d.table),
        ['parcel', 'cargo', 'platform_client'],
      );
      const names = ['parcel_search', 'cargo_search', 'platform_client_search'];
      assert.deepEqual(
        done.map((d: any) => d.index),
        dialect.name === 'sqlite' ? names : names.map((n) => `${n}_trgm`),
      );
      assert.deepEqual(
        [await ids('parcel', 'kettle'), await ids('parcel', 'aibek'), await ids('cargo', '01kg00')],
        before,
      );
      assert.ok(before.every((x) => x.length > 0));
      assert.equal(
        (await runOperator(['search', 'optimize', '--now'], {}, t.cloud.storage)).code,
        2,
        'unknown flags are refused',
      );
    });

    it("an item is found by its own text or its client's, and listed and counted once when both match", async () => {
      const db = t.cloud.storage.db;
      const now = t.clock.now();
      const master = await createClient(
        db,
        { companyId: t.w.logist.id, name: 'Kettle Master', phone: '+996700123123' },
        now,
      );
      const byClient = await createParcel(
        db,
        {
          companyId: t.w.logist.id,
          trackCode: 'PLBOX1',
          description: 'Plain box',
          weight: 1,
          currency: 'KGS',
          clientId: master.id,
        },
        now,
      );
      const byBoth = await createParcel(
        db,
        {
          companyId: t.w.logist.id,
          trackCode: 'PLLID1',
          description: 'Kettle lid',
          weight: 1,
          currency: 'KGS',
          clientId: master.id,
        },
        now,
      );
      const want = [t.s.parcels.receivedHub, t.s.parcels.sent, byClient.id, byBoth.id].sort((a, b) => b - a);
      assert.deepEqual(
        [...(await ids('parcel', 'kettle'))].reverse(),
        want,
        'own description (two), client name (one), both (one)',
      );
      const pages = [1, 2, 3].map((page) =>
        t.get(t.w.keys.logist.key, `/logistic-company/parcel/list${qs({ search: 'KETTLE', page, pageSize: 2 })}`),
      );
      const [p1, p2, p3] = await Promise.all(pages);
      assert.deepEqual([p1.body.total, p2.body.total, p3.body.total], [4, 4, 4]);
      assert.deepEqual(
        [...p1.body.data, ...p2.body.data, ...p3.body.data].map((x: any) => x.id),
        want,
      );
      assert.deepEqual(await ids('parcel', 'box'), [byClient.id]);
      assert.deepEqual(await ids('parcel', '123123'), [byClient.id, byBoth.id], 'the phone');
      const crate = await createCargo(
        db,
        {
          companyId: t.w.logist.id,
          warehouseId: t.w.store.id,
          description: 'Crate',
          weight: 1,
          currency: 'USD',
          clientId: master.id,
        },
        now,
      );
      assert.deepEqual(await ids('cargo', 'kettle master'), [crate.id]);
    });

    it("the list search reads the item and client trigram indexes, and walks none of the caller's items", async () => {
      const db = t.cloud.storage.db;
      // The list query itself, with a whole number so that the client-code branch is there too.
      const q = await selectShipments(db, dialect.name, 'parcel', {
        companyId: t.w.logist.id,
        search: parseListSearch('7001'),
      });
      const list = q!
        .select((eb) => ['id', eb.fn.countAll<number>().over().as('total')])
        .orderBy('id', 'desc')
        .limit(10)
        .compile();
      if (dialect.name === 'sqlite') {
        const plan = (
          await db.executeQuery<{ detail: string }>(
            CompiledQuery.raw(`explain query plan ${list.sql}`, [...list.parameters]),
          )
        ).rows.map((r) => r.detail);
        const text = plan.join(' | ');
        assert.match(text, /SCAN parcel_search VIRTUAL TABLE INDEX/, text);
        assert.match(text, /SCAN platform_client_search VIRTUAL TABLE INDEX/, text);
        assert.match(text, /SEARCH platform_client USING INTEGER PRIMARY KEY/, text);
        assert.match(text, /SEARCH parcel USING COVERING INDEX parcel_client \(clientId=\?\)/, text);
        assert.match(
          text,
          /SEARCH parcel USING COVERING INDEX parcel_client_company \(clientCompanyId=\? AND id=\?\)/,
          text,
          "the found ids, looked up within the caller's items",
        );
        // No walk of a table, or of all the rows of one company (an index range on the company alone).
        const walks = plan.filter(
          (d) =>
            /^SCAN (parcel|platform_client)\b(?!_search)/.test(d) ||
            /USING (COVERING )?INDEX \S+ \((clientCompanyId|companyId)=\?\)$/.test(d),
        );
        assert.deepEqual(walks, [], text);
        // With rank 1, FTS5 checks its index against the rows it mirrors, and throws when they differ.
        for (const index of ['parcel_search', 'cargo_search', 'platform_client_search']) {
          await sql`insert into ${sql.table(index)}(${sql.table(index)}, rank) values ('integrity-check', 1)`.execute(
            db,
          );
        }
      } else {
        const idx = await sql<{
          indexdef: string;
        }>`select indexdef from pg_indexes where schemaname = current_schema() and indexname like '%search_trgm'`.execute(
          db,
        );
        assert.equal(idx.rows.length, 3);
        for (const r of idx.rows) assert.match(r.indexdef, /USING gin \("searchText" public\.gin_trgm_ops\)/);
        // A handful of rows is cheaper to read otherwise: forbid the alternatives to see that the
        // indexes serve the very conditions the list writes (at scale: docs/platform.md, "Search").
        await db.connection().execute(async (c) => {
          // Plain index scans too: a full walk of a primary key can stand in for a table scan.
          for (const off of ['enable_seqscan', 'enable_indexscan'])
            await sql`select set_config(${off}, 'off', false)`.execute(c);
          const plan = (
            await c.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${list.sql}`, [...list.parameters]))
          ).rows
            .map((r) => Object.values(r)[0])
            .join('\n');
          for (const on of ['enable_seqscan', 'enable_indexscan'])
            await sql`select set_config(${on}, 'on', false)`.execute(c);
          assert.match(plan, /Bitmap Index Scan on parcel_search_trgm/, plan);
          assert.match(plan, /Bitmap Index Scan on platform_client_search_trgm/, plan);
          // The ids are worked out once (an InitPlan) and the item rows then read by them: on a
          // handful of rows by the company index; at a million, by primary key (docs/platform.md).
          assert.match(plan, /InitPlan 1[\s\S]*id = ANY \(\$\d\)/, plan);
        });
      }
    });
  });
}
