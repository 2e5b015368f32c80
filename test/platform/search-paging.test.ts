/**
 * A list whose only condition is a text search counts and pages the ids its branches find
 * (storage/shipment-search.ts, scopedSearchIds): an item found by several branches counts once,
 * another company's items never count, and paging agrees with the same search combined with
 * another filter (which takes the general path).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { addCompanyCode, createPlatformCompany, removeCompanyCode } from '../../cloud/services/platform/companies.ts';
import { createCargo } from '../../cloud/services/platform/cargo.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { createCargoType } from '../../cloud/services/platform/cargo-types.ts';
import { createClient } from '../../cloud/services/platform/clients.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { listShipments, type ShipmentFilter, type ShipmentPage } from '../../cloud/storage/shipment-queries.ts';
import { collectBatches } from '../../cloud/storage/batches.ts';
import { parseListSearch } from '../../cloud/domain/platform/list-search.ts';

/** A page's total and its rows in one array. */
const rowsOf = async <T extends 'parcel' | 'cargo'>(page: ShipmentPage<T>) => ({
  total: page.total,
  rows: await collectBatches(page.batches),
});

for (const dialect of DIALECTS) {
  describe(`a search as the list's only condition (${dialect.name})`, () => {
    let s: TestStorage;
    const at = new Date('2026-05-04T08:00:00.000Z');
    let ours = 0;
    let kanatCode = 0;
    let packId = 0;
    let cargoId = 0;
    const id: Record<string, number> = {};

    before(async () => {
      s = await openTestStorage(dialect);
      const pack = await createCargoType(s.db, { title: 'Package', type: 'PACKAGE' }, at);
      const mine = await createPlatformCompany(
        s.db,
        { title: 'Silk Road', type: 'LOGIST', codes: [{ title: 'SRL', cargoTypeId: pack.id }] },
        at,
      );
      const theirs = await createPlatformCompany(
        s.db,
        { title: 'Other Road', type: 'LOGIST', codes: [{ title: 'OTR', cargoTypeId: pack.id }] },
        at,
      );
      ours = mine.id;
      packId = pack.id;
      const kanat = await createClient(s.db, { companyId: mine.id, name: 'Kanat Orozov', phone: '+996700424242' }, at);
      kanatCode = kanat.code;
      const namesake = await createClient(
        s.db,
        { companyId: theirs.id, name: 'Kanat Orozov', phone: '+996700424243' },
        at,
      );
      const parcel = async (name: string, clientId: number | undefined, description: string, companyId = mine.id) =>
        (id[name] = (
          await createParcel(
            s.db,
            {
              companyId,
              trackCode: `PL${name.toUpperCase()}`,
              description,
              weight: 1,
              currency: 'KGS',
              clientId,
              cargoTypeId: pack.id,
            },
            at,
          )
        ).id);
      // Found by its own text and by its client's name: once.
      await parcel('twice', kanat.id, 'Gift for Kanat Orozov');
      for (let i = 0; i < 5; i++) await parcel(`plain${i}`, kanat.id, `Box ${i}`);
      // The namesake's parcel, and another company's parcel that names our client: never ours.
      await parcel('namesakes', namesake.id, 'Box for Kanat Orozov', theirs.id);
      await parcel('unclaimed', undefined, 'Kanat Orozov spare parts');
      const store = await createWarehouse(s.db, { companyId: mine.id, title: 'Urumqi hub' }, at);
      cargoId = (
        await createCargo(
          s.db,
          {
            companyId: mine.id,
            warehouseId: store.id,
            weight: 5,
            currency: 'USD',
            description: 'Tiles',
            tractorNumber: '01KG001AAA',
            clientId: kanat.id,
            cargoTypeId: pack.id,
          },
          at,
        )
      ).id;
    });
    after(() => s?.destroy());

    const list = (search: string, page: { limit: number; offset: number }, extra: Partial<ShipmentFilter> = {}) =>
      listShipments(
        s.db,
        s.dialect,
        'parcel',
        { companyId: ours, search: parseListSearch(search), ...extra },
        page,
      ).then(rowsOf);

    it("counts an item found by several branches once, and only the caller's clients' items", async () => {
      const all = await list('kanat orozov', { limit: 50, offset: 0 });
      const expected = [id.plain4, id.plain3, id.plain2, id.plain1, id.plain0, id.twice];
      assert.deepEqual([all.total, all.rows.map((r) => r.id)], [6, expected]);
      const own = await list('gift for', { limit: 50, offset: 0 });
      assert.deepEqual([own.total, own.rows.map((r) => r.id)], [1, [id.twice]]);
      assert.deepEqual(
        await list('spare parts', { limit: 50, offset: 0 }),
        { total: 0, rows: [] },
        "an item without a client is nobody's",
      );
    });

    it('pages newest first with the total on every page, as the general path does', async () => {
      const pages = [];
      for (let offset = 0; offset < 8; offset += 4) pages.push(await list('424242', { limit: 4, offset }));
      assert.deepEqual(
        pages.map((p) => p.total),
        [6, 6],
      );
      assert.deepEqual(
        pages.flatMap((p) => p.rows.map((r) => r.id)),
        [id.plain4, id.plain3, id.plain2, id.plain1, id.plain0, id.twice],
      );
      const past = await list('424242', { limit: 4, offset: 8 });
      assert.deepEqual([past.total, past.rows], [6, []], 'a page past the end still tells the total');
      // Every parcel found is Kanat's: the same answer through the filtered (general) query.
      const general = await list('424242', { limit: 4, offset: 4 }, { code: kanatCode });
      assert.deepEqual(
        [general.total, general.rows.map((r) => r.id)],
        [pages[1].total, pages[1].rows.map((r) => r.id)],
      );
    });

    it('finds the items by a code name added later, and no longer by one removed', async () => {
      const cargo = (q: string) =>
        listShipments(
          s.db,
          s.dialect,
          'cargo',
          { companyId: ours, search: parseListSearch(q) },
          { limit: 50, offset: 0 },
        ).then(rowsOf);
      assert.equal((await list('knt', { limit: 50, offset: 0 })).total, 0);
      const code = await addCompanyCode(s.db, ours, 'KNT', packId, at);
      assert.equal((await list('knt', { limit: 50, offset: 0 })).total, 6, "every parcel of the company's clients");
      assert.deepEqual(
        (await cargo('knt')).rows.map((r) => r.id),
        [cargoId],
      );
      await removeCompanyCode(s.db, ours, code.id, at);
      assert.equal((await list('knt', { limit: 50, offset: 0 })).total, 0);
      assert.equal((await cargo('knt')).total, 0);
      assert.equal((await list('srl', { limit: 50, offset: 0 })).total, 6, 'the other code name stays');
    });
  });
}
