import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { integrationGet, qs } from '../helpers/integrations.ts';
import { ManualClock } from '../../shared/clock.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createClient, updateClient } from '../../cloud/services/platform/clients.ts';
import { createPlatformApiKey } from '../../cloud/services/platform/api-keys.ts';

const CLIENT_KEYS = [
  'address',
  'city',
  'cityId',
  'code',
  'company',
  'companyId',
  'country',
  'countryId',
  'createdAt',
  'deliveryWarehouseCompany',
  'deliveryWarehouseCompanyId',
  'id',
  'isActive',
  'name',
  'phone',
  'updatedAt',
];

for (const dialect of DIALECTS) {
  describe(`platform clients (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    const clock = new ManualClock('2026-03-02T09:00:00.000Z');
    const get = integrationGet(() => cloud);
    const search = (key: string, params: Parameters<typeof qs>[0]) => get(key, `/client/search-by-code${qs(params)}`);
    const names = (res: { body: any }) => res.body.map((c: any) => c.name);
    let crowd: { key: string; companyId: number };
    let dormant: number;

    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
      const db = cloud.storage.db;
      // A switched-off client: readable by id, never found by search.
      dormant = (
        await createClient(db, { companyId: w.logist.id, name: 'Dormant', phone: '+996555000009' }, clock.now())
      ).id;
      await updateClient(db, dormant, { isActive: false }, clock.now());
      // A company with more clients than one answer holds.
      const big = await createPlatformCompany(
        db,
        { title: 'Big Cargo', type: 'LOGIST', codes: [{ title: 'BIG', cargoTypeId: w.cargoType.id }] },
        clock.now(),
      );
      for (let i = 0; i < 25; i++) await createClient(db, { companyId: big.id, name: `Client ${i + 1}` }, clock.now());
      crowd = { key: (await createPlatformApiKey(db, big.id, 'main', clock.now())).key, companyId: big.id };
    });
    after(() => cloud.stop());

    describe('GET /client/{id}', () => {
      it('answers the client with its country, city, company (with code names) and delivery warehouse company', async () => {
        const res = await get(w.keys.logist.key, `/client/${w.aibek.id}`);
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), CLIENT_KEYS);
        const c = res.body;
        assert.deepEqual(
          [c.id, c.name, c.phone, c.code, c.isActive, c.companyId],
          [w.aibek.id, 'Aibek', '+996555000001', 1, true, w.logist.id],
        );
        assert.deepEqual(c.country, { id: w.kg.id, title: 'Kyrgyzstan' });
        assert.deepEqual(c.city, { id: w.bishkek.id, title: 'Bishkek' });
        assert.deepEqual(c.company, {
          id: w.logist.id,
          title: 'Silk Road Logistics',
          codes: [
            { id: c.company.codes[0].id, title: 'SRL' },
            { id: c.company.codes[1].id, title: 'SRLA' },
          ],
        });
        assert.deepEqual(c.deliveryWarehouseCompany, { id: w.warehouseCo.id, title: 'Bishkek Storage' });
        assert.deepEqual(
          [c.countryId, c.cityId, c.deliveryWarehouseCompanyId],
          [w.kg.id, w.bishkek.id, w.warehouseCo.id],
        );
      });

      it('nested objects are null where the client has none', async () => {
        const c = (await get(w.keys.otherLogist.key, `/client/${w.stranger.id}`)).body;
        assert.deepEqual([c.country, c.city, c.deliveryWarehouseCompany], [null, null, null]);
        assert.deepEqual(
          c.company.codes.map((k: any) => k.title),
          ['OSX'],
        );
      });

      it("another company's client, or a missing one, is null", async () => {
        for (const [key, id] of [
          [w.keys.logist.key, w.stranger.id],
          [w.keys.otherLogist.key, w.aibek.id],
          [w.keys.market.key, w.aibek.id],
          [w.keys.logist.key, 999_999],
        ] as const) {
          const res = await get(key, `/client/${id}`);
          assert.deepEqual([res.status, res.text], [200, 'null'], `client ${id}`);
        }
      });

      it('a warehouse company reads the clients of the logistics companies it works with, and only those', async () => {
        assert.equal((await get(w.keys.warehouse.key, `/client/${w.bermet.id}`)).body.name, 'Bermet');
        assert.equal((await get(w.keys.warehouse.key, `/client/${w.stranger.id}`)).text, 'null');
      });

      it('a switched-off client is read with isActive false', async () => {
        const c = (await get(w.keys.logist.key, `/client/${dormant}`)).body;
        assert.deepEqual([c.name, c.isActive], ['Dormant', false]);
      });

      it('400 for an id that is not an integer >= 1', async () => {
        for (const [id, message] of [
          ['abc', 'params/id must be integer'],
          ['0', 'params/id must be >= 1'],
          ['99999999999', 'params/id must be <= 2147483647'],
        ]) {
          const res = await get(w.keys.logist.key, `/client/${id}`);
          assert.deepEqual([res.status, res.body.code, res.body.message], [400, 'FST_ERR_VALIDATION', message]);
        }
      });

      it('needs an API key: none 403 TOKEN_NOT_VALID, unknown 401 UNAUTHORIZED', async () => {
        assert.deepEqual((await cloud.request('GET', `/api/v1/integrations/client/${w.aibek.id}`)).body, {
          statusCode: 403,
          error: 'Forbidden',
          message: 'TOKEN_NOT_VALID',
        });
        assert.equal((await get('plp_unknown', `/client/${w.aibek.id}`)).body.message, 'UNAUTHORIZED');
      });
    });

    describe('GET /client/search-by-code: the five forms', () => {
      it('<name>-<number>: the client with that code at the company of that code name (uppercased, trimmed)', async () => {
        for (const s of ['SRL-2', '  srl-2 ', 'srla-2'])
          assert.deepEqual(names(await search(w.keys.logist.key, { search: s })), ['Bermet'], s);
        assert.deepEqual(names(await search(w.keys.logist.key, { search: 'SRL-77' })), []);
      });

      it('-<number> and digits only: the client with that code', async () => {
        assert.deepEqual(names(await search(w.keys.logist.key, { search: '-1' })), ['Aibek']);
        assert.deepEqual(names(await search(w.keys.logist.key, { search: '2' })), ['Bermet']);
        assert.deepEqual(names(await search(w.keys.otherLogist.key, { search: '1' })), ['Stranger']);
      });

      it('Latin letters only: the clients of the company with that code name, by code', async () => {
        assert.deepEqual(names(await search(w.keys.logist.key, { search: 'srl' })), ['Aibek', 'Bermet']);
        assert.deepEqual(names(await search(w.keys.logist.key, { search: 'SRLA' })), ['Aibek', 'Bermet']);
        assert.deepEqual(names(await search(w.keys.logist.key, { search: 'NOPE' })), []);
      });

      it('anything else: an empty array', async () => {
        for (const s of [
          '',
          '   ',
          'SRL-',
          'SRL1',
          'S-R-1',
          '+996555000001',
          'Aibek',
          'SRL-1-2',
          '1.5',
          'ÄBC',
          '1234567890',
        ]) {
          const res = await search(w.keys.logist.key, { search: s });
          assert.deepEqual([res.status, res.body], [200, []], JSON.stringify(s));
        }
      });

      it('a logistics company finds only its own clients, whatever the form', async () => {
        assert.deepEqual(names(await search(w.keys.logist.key, { search: 'OSX-1' })), []);
        assert.deepEqual(names(await search(w.keys.logist.key, { search: 'OSX' })), []);
        assert.deepEqual(names(await search(w.keys.logist.key, { search: '1' })), ['Aibek']);
      });

      it("a warehouse company finds the clients of the logistics companies it works with, not its own or others'", async () => {
        assert.deepEqual(names(await search(w.keys.warehouse.key, { search: 'SRL-1' })), ['Aibek']);
        assert.deepEqual(names(await search(w.keys.warehouse.key, { search: '1' })), ['Aibek']);
        assert.deepEqual(names(await search(w.keys.warehouse.key, { search: 'SRL' })), ['Aibek', 'Bermet']);
        assert.deepEqual(names(await search(w.keys.warehouse.key, { search: 'OSX-1' })), []);
      });

      it('other company types get an empty array', async () => {
        for (const key of [w.keys.market.key, w.keys.courier.key]) {
          for (const s of ['SRL-1', '1', 'SRL']) assert.deepEqual((await search(key, { search: s })).body, [], s);
        }
      });

      it('switched-off clients are not found', async () => {
        const res = await search(w.keys.logist.key, { search: 'SRL' });
        assert.ok(!names(res).includes('Dormant'));
      });

      it('answers at most 20 clients, lowest codes first', async () => {
        const res = await search(crowd.key, { search: 'BIG' });
        assert.equal(res.body.length, 20);
        assert.deepEqual(
          res.body.map((c: any) => c.code),
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      });
    });

    describe('GET /client/search-by-code: cargoTypes', () => {
      it('without it, code names are { id, title }', async () => {
        const [c] = (await search(w.keys.logist.key, { search: 'SRL-1' })).body;
        assert.deepEqual(Object.keys(c).sort(), CLIENT_KEYS);
        assert.deepEqual(
          c.company.codes.map((k: any) => Object.keys(k).sort()),
          [
            ['id', 'title'],
            ['id', 'title'],
          ],
        );
      });

      it('trims company.codes to those types, each with its cargoType', async () => {
        const res = await search(w.keys.logist.key, { search: 'SRL', cargoTypes: 'CAR' });
        assert.deepEqual(names(res), ['Aibek', 'Bermet']);
        for (const c of res.body) {
          assert.deepEqual(
            c.company.codes.map((k: any) => [k.title, k.cargoType.id, k.cargoType.type, k.cargoType.title]),
            [['SRLA', w.carType.id, 'CAR', 'Car']],
          );
        }
        const both = await search(w.keys.logist.key, { search: '1', cargoTypes: ['CARGO', 'CAR'] });
        assert.deepEqual(
          both.body[0].company.codes.map((k: any) => k.title),
          ['SRL', 'SRLA'],
        );
      });

      it('does not change which clients are selected, even when no code name is left', async () => {
        const res = await search(w.keys.logist.key, { search: 'SRLA-2', cargoTypes: 'FREIGHT' });
        assert.deepEqual(names(res), ['Bermet']);
        assert.deepEqual(res.body[0].company.codes, []);
      });

      it('400 for an unknown type, or a missing search', async () => {
        const bad = await search(w.keys.logist.key, { search: 'SRL', cargoTypes: ['CAR', 'BOAT'] });
        assert.deepEqual(
          [bad.status, bad.body.code, bad.body.message],
          [400, 'FST_ERR_VALIDATION', 'querystring/cargoTypes/1 must be equal to one of the allowed values'],
        );
        const missing = await search(w.keys.logist.key, {});
        assert.deepEqual(
          [missing.status, missing.body.message],
          [400, "querystring must have required property 'search'"],
        );
      });
    });
  });
}
