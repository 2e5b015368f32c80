import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import type { ManualClock } from '../../shared/clock.ts';
import { placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { haversineKm } from '../../cloud/domain/geo.ts';
import { POINTS_REFRESH_MS } from '../../cloud/storage/postomat-queries.ts';

const BASE = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`lockers (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: LockerWorld;
    before(async () => {
      cloud = await startTestCloud(dialect);
      w = await seedLockerWorld(cloud.storage.db);
      // Occupy the first cell of `near` with a placed parcel.
      const o = await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyA.key,
        body: { toUserPhone: '+996555000001', postomatId: w.near.id, sendMessage: false },
      });
      await placeOrder(cloud.storage, o.body.id, w.near.cells[0].id, cloud.clock.now());
    });
    after(() => cloud.stop());
    const get = (path: string) => cloud.request('GET', `${BASE}${path}`, { token: w.companyB.key });
    const titles = (res: any) => res.body.data.map((p: any) => p.title);

    describe('GET /postomat/list', () => {
      it('lists active lockers by title with their total', async () => {
        const res = await get('/postomat/list');
        assert.equal(res.status, 200);
        assert.equal(res.body.total, 4);
        assert.deepEqual(titles(res), ['Alpha Bazaar', 'Beta Station', 'Mystery Box', 'Zeta Mall']);
        const p = res.body.data.find((x: any) => x.id === w.near.id);
        assert.equal(p.shortId, 'ZETA01');
        assert.equal(p.isActive, true);
        assert.equal(typeof p.incrementalid, 'number');
        for (const key of ['city', 'district', 'cells', 'distance', 'agentSecretHash'])
          assert.equal(key in p, false, key);
      });

      it('paginates only when both page and pageSize are given', async () => {
        assert.equal((await get('/postomat/list?page=2')).body.data.length, 4);
        assert.equal((await get('/postomat/list?pageSize=1')).body.data.length, 4);
        const page = await get('/postomat/list?page=2&pageSize=3');
        assert.deepEqual(titles(page), ['Zeta Mall']);
        assert.equal(page.body.total, 4);
      });

      it('selects by ids (one or repeated), city and district', async () => {
        assert.deepEqual(titles(await get(`/postomat/list?ids=${w.far.id}`)), ['Alpha Bazaar']);
        assert.deepEqual(titles(await get(`/postomat/list?ids=${w.far.id}&ids=${w.near.id}&ids=${w.inactive.id}`)), [
          'Alpha Bazaar',
          'Zeta Mall',
        ]);
        assert.deepEqual(titles(await get(`/postomat/list?cityId=${w.osh.id}`)), ['Alpha Bazaar']);
        assert.deepEqual(titles(await get(`/postomat/list?districtId=${w.south.id}`)), ['Beta Station']);
      });

      it('adds city and district on request', async () => {
        const res = await get('/postomat/list?withCity=true&withDistrict=true');
        const near = res.body.data.find((x: any) => x.id === w.near.id);
        assert.equal(near.city.title, 'Bishkek');
        assert.equal(near.district.title, 'Center');
        const mystery = res.body.data.find((x: any) => x.id === w.noCoords.id);
        assert.equal(mystery.district, null);
      });

      it('sorts by distance in km with both coordinates, leaving out lockers without coordinates', async () => {
        const res = await get(`/postomat/list?latitude=${w.here.lat}&longitude=${w.here.lng}`);
        assert.deepEqual(titles(res), ['Zeta Mall', 'Beta Station', 'Alpha Bazaar']);
        assert.equal(res.body.total, 3);
        const d = res.body.data.map((p: any) => p.distance);
        assert.ok(d[0] < d[1] && d[1] < d[2]);
        assert.ok(Math.abs(d[2] - haversineKm(w.here.lat, w.here.lng, 40.513, 72.816)) < 1e-9);
        assert.ok(d[2] > 200 && d[2] < 400, `Bishkek to Osh is about 300 km, got ${d[2]}`);
        const paged = await get(`/postomat/list?latitude=${w.here.lat}&longitude=${w.here.lng}&page=2&pageSize=1`);
        assert.deepEqual(titles(paged), ['Beta Station']);
      });

      it('ignores a single coordinate', async () => {
        const res = await get(`/postomat/list?latitude=${w.here.lat}`);
        assert.deepEqual(titles(res), ['Alpha Bazaar', 'Beta Station', 'Mystery Box', 'Zeta Mall']);
        assert.equal('distance' in res.body.data[0], false);
      });

      it('withFreeCells adds active cells without a placed parcel, and is ignored with coordinates', async () => {
        const res = await get(`/postomat/list?withFreeCells=true&ids=${w.near.id}`);
        assert.deepEqual(
          res.body.data[0].cells.map((c: any) => c.number),
          [2, 3],
        );
        const near = await get(`/postomat/list?withFreeCells=true&latitude=${w.here.lat}&longitude=${w.here.lng}`);
        assert.equal('cells' in near.body.data[0], false);
      });

      for (const [qs, message] of [
        ['?ids=not-a-cuid', 'querystring/ids/0 must match format "cuid2"'],
        ['?latitude=north&longitude=1', 'querystring/latitude must be number'],
        ['?latitude=91&longitude=1', 'querystring/latitude must be <= 90'],
        ['?page=0&pageSize=1', 'querystring/page must be >= 1'],
        ['?withCity=maybe', 'querystring/withCity must be boolean'],
        ['?cityId=X', 'querystring/cityId must match format "cuid2"'],
      ]) {
        it(`400 for ${qs}`, async () => {
          const res = await get(`/postomat/list${qs}`);
          assert.equal(res.status, 400);
          assert.deepEqual(res.body, { statusCode: 400, error: 'Bad Request', message, code: 'FST_ERR_VALIDATION' });
        });
      }
      it('401 without a key', async () => {
        assert.equal((await cloud.request('GET', `${BASE}/postomat/list`)).status, 401);
      });

      it('shows a new and a switched-off locker in distance lists after one refresh interval', async () => {
        const q = `/postomat/list?latitude=${w.here.lat}&longitude=${w.here.lng}`;
        assert.deepEqual(titles(await get(q)), ['Zeta Mall', 'Beta Station', 'Alpha Bazaar']);
        const { createPostomat, updatePostomat } = await import('../../cloud/services/admin/postomats.ts');
        await createPostomat(
          cloud.storage.db,
          { title: 'Right Here', lat: w.here.lat, lng: w.here.lng, cityId: w.bishkek.id },
          undefined,
          cloud.clock.now(),
        );
        await updatePostomat(cloud.storage.db, w.mid.id, { isActive: false }, cloud.clock.now());
        assert.deepEqual(
          titles(await get(q)),
          ['Zeta Mall', 'Beta Station', 'Alpha Bazaar'],
          'the cached points until the interval passes',
        );
        // The cache's interval runs on the cloud's clock (a ManualClock here).
        (cloud.clock as ManualClock).advance(POINTS_REFRESH_MS + 50);
        assert.deepEqual(titles(await get(q)), ['Right Here', 'Zeta Mall', 'Alpha Bazaar']);
        await updatePostomat(cloud.storage.db, w.mid.id, { isActive: true }, cloud.clock.now());
      });
    });

    describe('GET /postomat/{id}', () => {
      it('reads one locker, null when missing', async () => {
        const res = await get(`/postomat/${w.mid.id}`);
        assert.equal(res.body.title, 'Beta Station');
        assert.equal('cells' in res.body, false);
        const missing = await get('/postomat/zzzzzzzzzzzzzzzzzzzzzzzz');
        assert.equal(missing.status, 200);
        assert.equal(missing.text, 'null');
      });
      it('withCity, withCells (each with its board), withBoards (each with its cells)', async () => {
        const res = await get(`/postomat/${w.mid.id}?withCity=true&withCells=true&withBoards=true`);
        assert.equal(res.body.city.title, 'Bishkek');
        assert.equal(res.body.cells.length, 4);
        assert.equal(res.body.cells[3].board.address, 1);
        assert.deepEqual(
          res.body.boards.map((b: any) => [b.address, b.cells.map((c: any) => c.number)]),
          [
            [0, [1, 2, 3]],
            [1, [4]],
          ],
        );
      });
      it('400 for a malformed id', async () => {
        assert.equal((await get('/postomat/BAD')).body.message, 'params/id must match format "cuid2"');
      });
    });

    describe('GET /cell/{postomatId}/free-cells', () => {
      it('lists active cells holding no parcel of a current order', async () => {
        const res = await get(`/cell/${w.near.id}/free-cells`);
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.map((c: any) => c.number),
          [2, 3],
        );
        assert.deepEqual(Object.keys(res.body[0]).sort(), [
          'boardId',
          'createdAt',
          'forRentAvailable',
          'id',
          'isActive',
          'isOpen',
          'number',
          'postomatId',
          'size',
          'title',
          'updatedAt',
        ]);
        assert.deepEqual(
          (await get(`/cell/${w.mid.id}/free-cells`)).body.map((c: any) => c.number),
          [1, 2, 3],
        );
      });
      it('an unknown locker has no free cells; a malformed id is 400', async () => {
        assert.deepEqual((await get('/cell/zzzzzzzzzzzzzzzzzzzzzzzz/free-cells')).body, []);
        assert.equal((await get('/cell/NOPE/free-cells')).status, 400);
      });
    });
  });
}
