import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { MIGRATIONS, migrateToLatest } from '../../cloud/storage/migrations/index.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createCargoType } from '../../cloud/services/platform/cargo-types.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { createCargo } from '../../cloud/services/platform/cargo.ts';
import { listShipments, type ShipmentPage } from '../../cloud/storage/shipment-queries.ts';
import { collectBatches } from '../../cloud/storage/batches.ts';
import { parseListSearch } from '../../cloud/domain/platform/list-search.ts';

const UNTIL_009 = MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '009_platform_search') + 1);
/** More parcels than one batch of the migration's rewrite. */
const BULK = 2_500;

/** A page's total and its rows in one array. */
const rowsOf = async <T extends 'parcel' | 'cargo'>(page: ShipmentPage<T>) => ({
  total: page.total,
  rows: await collectBatches(page.batches),
});

for (const dialect of DIALECTS) {
  describe(`migration 010_client_search on an existing database (${dialect.name})`, () => {
    let s: TestStorage;
    const at = new Date('2026-03-08T09:00:00.000Z');
    const iso = at.toISOString();
    let company: { id: number };
    const ids = { parcel: 0, lone: 0, cargo: 0, bulkFirst: 0, bulkLast: 0, client: 0, other: 0 };

    before(async () => {
      s = await openTestStorage(dialect, { migrate: false });
      await migrateToLatest(s.db, s.dialect, UNTIL_009);
      const db = s.db as any;
      const pack = await createCargoType(s.db, { title: 'Package', type: 'PACKAGE' }, at);
      company = await createPlatformCompany(
        s.db,
        { title: 'Silk Road Logistics', type: 'LOGIST', codes: [{ title: 'SRL', cargoTypeId: pack.id }] },
        at,
      );
      const store = await createWarehouse(s.db, { companyId: company.id, title: 'Urumqi hub' }, at);
      // Clients as 009 kept them: no search text of their own.
      const client = (code: number, name: string, phone: string) =>
        db
          .insertInto('platform_client')
          .values({ companyId: company.id, code, name, phone, isActive: 1, createdAt: iso, updatedAt: iso })
          .returning('id')
          .executeTakeFirstOrThrow();
      ids.client = (await client(1, 'Айгуль Касымова', '+996555000101')).id;
      ids.other = (await client(2, 'Bermet Asanova', '+996555000102')).id;
      await db.updateTable('platform_company').set({ lastClientCode: 2 }).where('id', '=', company.id).execute();
      const p = await createParcel(
        s.db,
        {
          companyId: company.id,
          trackCode: 'PLOLD1',
          description: 'Blue kettle',
          weight: 1,
          currency: 'KGS',
          clientId: ids.client,
          cargoTypeId: pack.id,
        },
        at,
      );
      const lone = await createParcel(
        s.db,
        { companyId: company.id, trackCode: 'PLLONE', description: 'Unlabelled box', weight: 1, currency: 'KGS' },
        at,
      );
      const c = await createCargo(
        s.db,
        {
          companyId: company.id,
          warehouseId: store.id,
          weight: 5,
          currency: 'USD',
          description: 'Tiles',
          tractorNumber: '01KG001AAA',
          clientId: ids.client,
        },
        at,
      );
      [ids.parcel, ids.lone, ids.cargo] = [p.id, lone.id, c.id];
      // The texts as 009 wrote them: the client's name and phone inside each item's.
      await db
        .updateTable('parcel')
        .set({ searchText: 'plold1\nblue kettle\nsrl\nайгуль касымова\n+996555000101' })
        .where('id', '=', p.id)
        .execute();
      await db
        .updateTable('cargo')
        .set({ searchText: 'tiles\nsrl\nайгуль касымова\n+996555000101\nsilk road logistics\n01kg001aaa' })
        .where('id', '=', c.id)
        .execute();
      const { id: _id, ...template } = await db
        .selectFrom('parcel')
        .selectAll()
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow();
      const bulk = Array.from({ length: BULK }, (_, i) => ({
        ...template,
        trackCode: `PLBULK${i}`,
        description: `Box ${i}`,
        clientId: ids.other,
        clientCode: 2,
        searchText: `plbulk${i}\nbox ${i}\nsrl\nbermet asanova\n+996555000102`,
      }));
      for (let i = 0; i < bulk.length; i += 200)
        await db
          .insertInto('parcel')
          .values(bulk.slice(i, i + 200))
          .execute();
      const range = await db
        .selectFrom('parcel')
        .select((eb: any) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
        .where('clientId', '=', ids.other)
        .executeTakeFirstOrThrow();
      [ids.bulkFirst, ids.bulkLast] = [Number(range.first), Number(range.last)];
      await migrateToLatest(s.db, s.dialect);
    });
    after(() => s?.destroy());

    const text = async (table: 'parcel' | 'cargo' | 'platform_client', id: number) =>
      (await s.db.selectFrom(table).select('searchText').where('id', '=', id).executeTakeFirstOrThrow()).searchText;
    const search = async (table: 'parcel' | 'cargo', q: string) =>
      rowsOf(
        await listShipments(
          s.db,
          s.dialect,
          table,
          { companyId: company.id, search: parseListSearch(q) },
          { limit: 5, offset: 0 },
        ),
      );

    it('gives each client its own lower-cased text (Cyrillic too) and takes the client parts out of the items', async () => {
      assert.equal(await text('platform_client', ids.client), 'айгуль касымова\n+996555000101');
      assert.equal(await text('parcel', ids.parcel), 'plold1\nblue kettle\nsrl');
      assert.equal(await text('cargo', ids.cargo), 'tiles\nsrl\nsilk road logistics\n01kg001aaa');
      assert.equal(await text('parcel', ids.lone), 'pllone\nunlabelled box', 'an item without a client is as it was');
      assert.equal(await text('parcel', ids.bulkFirst), 'plbulk0\nbox 0\nsrl');
      assert.equal(
        await text('parcel', ids.bulkLast),
        `plbulk${BULK - 1}\nbox ${BULK - 1}\nsrl`,
        'every batch rewritten',
      );
      const left = await s.db
        .selectFrom('parcel')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('searchText', 'like', '%bermet%')
        .executeTakeFirstOrThrow();
      assert.equal(Number(left.n), 0);
    });

    it('searches find the items by their own parts and by their client, through the rebuilt indexes', async () => {
      assert.deepEqual(
        (await search('parcel', 'АЙГУЛЬ')).rows.map((r) => r.id),
        [ids.parcel],
      );
      assert.deepEqual(
        (await search('cargo', '000101')).rows.map((r) => r.id),
        [ids.cargo],
      );
      assert.deepEqual(
        (await search('parcel', 'kettle')).rows.map((r) => r.id),
        [ids.parcel],
      );
      const bermet = await search('parcel', 'bermet asanova');
      assert.deepEqual([bermet.total, bermet.rows[0].id], [BULK, ids.bulkLast]);
      assert.equal((await search('parcel', 'plbulk1234')).total, 1);
      if (s.dialect === 'sqlite') {
        // With rank 1, FTS5 checks each index against the rows it mirrors, and throws when they differ.
        for (const index of ['parcel_search', 'cargo_search', 'platform_client_search']) {
          await sql`insert into ${sql.table(index)}(${sql.table(index)}, rank) values ('integrity-check', 1)`.execute(
            s.db,
          );
        }
      } else {
        const idx = await sql<{
          indexname: string;
        }>`select indexname from pg_indexes where schemaname = current_schema() and indexname like '%search_trgm' order by indexname`.execute(
          s.db,
        );
        assert.deepEqual(
          idx.rows.map((r) => r.indexname),
          ['cargo_search_trgm', 'parcel_search_trgm', 'platform_client_search_trgm'],
        );
        const targets = await sql<{
          n: number;
        }>`select attstattarget as n from pg_attribute where attrelid = 'platform_client'::regclass and attname = 'searchText'`.execute(
          s.db,
        );
        assert.equal(Number(targets.rows[0].n), 1000, "a finer histogram for the planner's guess at a substring");
      }
    });
  });
}
