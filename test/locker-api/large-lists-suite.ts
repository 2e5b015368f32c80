import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStorage, type TestDialect, type TestStorage } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { createLogger } from '../../cloud/logger.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createCity, createCountry, createDistrict } from '../../cloud/services/admin/directories.ts';
import { LIST_BATCH } from '../../cloud/storage/batches.ts';
import { seedManyLockers, seedManyOrders, seedManyPlaces, type ManyLockers } from './bulk-seed.ts';
import { loggedStorage, StatementLog, timedGet, type TimedAnswer } from './list-probes.ts';

const BASE = '/api/v1/integration/company';
const LOCKERS = 10_000;
const ORDERS = 3_000;
/** A bound on how long one turn may hold the event loop: not a speed assertion (on main it was 28 s). */
const MAX_BLOCK_MS = 250;
const ALL_FLAGS =
  'withToUser=true&withCell=true&withPostomat=true&withCurrentStatus=true&withStatuses=true&withRent=true';

/** What an order list reads (the locker sync and the event dispatcher poll other tables meanwhile). */
const ORDER_LIST_TABLES = new Set([
  'locker_order',
  'order_code',
  'recipient',
  'cell',
  'order_status',
  'postomat',
  'order_stats',
]);
const batchesOf = (rows: number) => Math.ceil(rows / LIST_BATCH);
const streamed = (res: { headers: Headers }) =>
  res.headers.get('content-length') === null && res.headers.get('transfer-encoding') === 'chunked';

/**
 * The suite for one database. Each database has its own test file (large-lists.*.test.ts): seeding
 * 10,000 lockers twice in one file came close to the runner's per-file timeout on a busy machine.
 */
export function largeListSuite(dialect: TestDialect): void {
  describe(`large list answers (${dialect.name})`, () => {
    let storage: TestStorage;
    let cloud: TestCloud;
    let lockers: ManyLockers;
    let key: string;
    let companyId: string;
    let cityId: string;
    const log = new StatementLog();
    const logged: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const get = (path: string) => timedGet(`${cloud.url}${BASE}${path}`, { authorization: `Bearer ${key}` });

    before(async () => {
      storage = await openTestStorage(dialect);
      const db = storage.db;
      const company = await createLockerCompany(db, { title: 'Big Post', defaultDays: 3 }, new Date());
      companyId = company.id;
      key = (await createLockerApiKey(db, company.id, undefined, new Date())).key;
      const country = await createCountry(db, 'Kyrgyzstan', undefined, new Date());
      const city = await createCity(db, country.id, 'Bishkek', undefined, new Date());
      cityId = city.id;
      const district = await createDistrict(db, city.id, 'Center', undefined, new Date());
      lockers = await seedManyLockers(
        db,
        LOCKERS,
        { cityId: city.id, districtId: district.id },
        '2025-01-01T00:00:00.000Z',
      );
      await seedManyOrders(db, company.id, lockers, ORDERS, new Date('2025-01-02T00:00:00.000Z'));
      const logger = createLogger({ write: (line) => logged.push(JSON.parse(line)) });
      cloud = await startTestCloud(dialect, { reuse: loggedStorage(storage, log), logger });
      // The first answers of a process compile their code paths: small pages do that before anything is measured.
      await get('/postomat/list?withFreeCells=true&withCity=true&withDistrict=true&page=1&pageSize=50');
      await get(`/order/list?pageSize=50&${ALL_FLAGS}`);
    });
    after(() => (cloud ? cloud.stop() : storage?.destroy()));

    const activeIndexes = () => lockers.ids.map((_, i) => i).filter((i) => lockers.isActive(i));
    /** A DELIVERED order (every fourth of the first ORDERS) holds cell 1 of its locker. */
    const cellOneTaken = (i: number) => i < ORDERS && i % 4 === 0;
    const expectedFreeCells = (i: number) =>
      lockers.cells[i].filter((_, n) => !(n === 0 && cellOneTaken(i)) && !(n === 7 && lockers.cellEightOff(i)));
    const assertNotBlocked = (res: TimedAnswer) =>
      assert.ok(res.maxBlockMs < MAX_BLOCK_MS, `the event loop stood still for ${Math.round(res.maxBlockMs)} ms`);

    describe('GET /postomat/list?withFreeCells=true over 10,000 lockers', () => {
      it('answers every active locker with its free cells, by title then id', async () => {
        const from = log.statements.length;
        const res = await get('/postomat/list?withFreeCells=true');
        assert.equal(res.status, 200);
        assert.ok(res.complete);
        const active = activeIndexes();
        assert.equal(res.body.total, active.length);
        assert.equal(res.body.data.length, active.length);
        for (let k = 1; k < res.body.data.length; k++) {
          const [a, b] = [res.body.data[k - 1], res.body.data[k]];
          assert.ok(
            a.title < b.title || (a.title === b.title && a.id < b.id),
            `${a.title}/${a.id} before ${b.title}/${b.id}`,
          );
        }
        const byId = new Map<string, any>(res.body.data.map((p: any) => [p.id, p]));
        for (const i of [0, 1, 2, 3, 4, 5, 98, 99, 2999, 3000, 4001, LOCKERS - 1]) {
          const p = byId.get(lockers.ids[i]);
          if (!lockers.isActive(i)) {
            assert.equal(p, undefined, `inactive locker ${i} is not listed`);
            continue;
          }
          assert.deepEqual(
            p.cells.map((c: any) => c.id),
            expectedFreeCells(i),
            `free cells of locker ${i}`,
          );
          assert.ok(p.cells.every((c: any) => c.postomatId === p.id && c.isActive === true));
        }
        const cellCount = res.body.data.reduce((n: number, p: any) => n + p.cells.length, 0);
        assert.equal(
          cellCount,
          active.reduce((n, i) => n + expectedFreeCells(i).length, 0),
        );

        // Bounded work: a statement per batch of lockers and one per batch of their cells, none
        // reading more than a batch of lockers.
        const lockerReads = log.on('postomat', from);
        const cellReads = log.on('cell', from);
        assert.ok(lockerReads.length <= batchesOf(LOCKERS) + 3, `${lockerReads.length} statements on postomat`);
        assert.ok(cellReads.length <= batchesOf(LOCKERS) + 1, `${cellReads.length} statements on cell`);
        assert.ok(
          Math.max(...lockerReads.map((s) => s.rows)) <= LIST_BATCH + 1,
          'no statement reads more than a batch of lockers (and the row that tells whether more follow)',
        );
        assert.ok(
          Math.max(...cellReads.map((s) => s.rows)) <= (LIST_BATCH + 1) * 8,
          'no statement reads the cells of more than a batch of lockers',
        );
        assert.ok(streamed(res));
        assertNotBlocked(res);
      });

      it('a page of the list is the same slice of it, answered in one piece', async () => {
        const all = (await get('/postomat/list?withFreeCells=true')).body;
        const page = await get('/postomat/list?withFreeCells=true&page=3&pageSize=100');
        assert.equal(page.body.total, all.total);
        assert.deepEqual(page.body.data, all.data.slice(200, 300));
        assert.equal(Number(page.headers.get('content-length')), Buffer.byteLength(page.text));
      });

      it('by distance with city and district: every located active locker, nearest first', async () => {
        // The points of every locker are read once per process and cached (postomat-queries.ts):
        // that read is not part of the answer's work.
        await get('/postomat/list?latitude=42.87&longitude=74.57&page=1&pageSize=1');
        const from = log.statements.length;
        const res = await get(
          '/postomat/list?latitude=42.87&longitude=74.57&withCity=true&withDistrict=true&withFreeCells=true',
        );
        assert.equal(res.status, 200);
        const located = activeIndexes().filter((i) => lockers.hasCoordinates(i));
        assert.equal(res.body.total, located.length);
        assert.equal(res.body.data.length, located.length);
        const d = res.body.data.map((p: any) => p.distance);
        for (let k = 1; k < d.length; k++)
          assert.ok(d[k - 1] <= d[k], `distance ${k} is not smaller than the one before`);
        const byId = new Map<string, any>(res.body.data.map((p: any) => [p.id, p]));
        const one = byId.get(lockers.ids[1]);
        assert.deepEqual(
          [one.city.title, one.district.title, 'cells' in one],
          ['Bishkek', 'Center', false],
          'withFreeCells is ignored with coordinates',
        );
        assert.equal(byId.get(lockers.ids[2]).district, null);
        const lockerReads = log.on('postomat', from);
        assert.ok(lockerReads.length <= batchesOf(LOCKERS) + 3, `${lockerReads.length} statements on postomat`);
        assert.ok(
          Math.max(...lockerReads.map((s) => s.rows)) <= LIST_BATCH + 1,
          'no statement reads more than a batch of lockers (and the row that tells whether more follow)',
        );
        assertNotBlocked(res);
      });
    });

    describe('GET /order/list with a large pageSize and every with* flag', () => {
      it('is the concatenation of the one-piece pages, newest first, with the same totals and aggregates', async () => {
        const from = log.statements.length;
        const res = await get(`/order/list?pageSize=100000&${ALL_FLAGS}`);
        assert.equal(res.status, 200);
        assert.ok(streamed(res), 'more than one batch is streamed');
        assertNotBlocked(res);
        const orderReads = log.on('locker_order', from);
        assert.ok(
          Math.max(...orderReads.map((s) => s.rows)) <= LIST_BATCH + 1,
          'no statement reads more than a batch of orders (and the row that tells whether more follow)',
        );
        // Per batch: the orders, then their codes, recipients, cells, statuses and lockers.
        const listReads = log.statements.slice(from).filter((s) => s.tables.some((t) => ORDER_LIST_TABLES.has(t)));
        assert.ok(listReads.length <= 6 * batchesOf(ORDERS) + 4, `${listReads.length} statements`);

        const pages: any[] = [];
        let first: any;
        for (let page = 1; page <= Math.ceil(ORDERS / 400); page++) {
          const one = await get(`/order/list?page=${page}&pageSize=400&${ALL_FLAGS}`);
          assert.equal(
            Number(one.headers.get('content-length')),
            Buffer.byteLength(one.text),
            'a page of one batch is answered in one piece',
          );
          first ??= one.body;
          pages.push(...one.body.data);
        }
        const reference = JSON.stringify({
          total: first.total,
          data: pages,
          aggregate: first.aggregate,
          expiredAggregate: first.expiredAggregate,
        });
        assert.equal(res.text, reference);

        assert.equal(res.body.total, ORDERS);
        const ids = await storage.db
          .selectFrom('locker_order')
          .select('id')
          .where('companyId', '=', companyId)
          .orderBy('createdAt', 'desc')
          .orderBy('id', 'desc')
          .execute();
        assert.deepEqual(
          res.body.data.map((o: any) => o.id),
          ids.map((o) => o.id),
        );
        const o = res.body.data[0];
        assert.deepEqual(Object.keys(res.body), ['total', 'data', 'aggregate', 'expiredAggregate']);
        assert.ok(o.toUser.phone.startsWith('+99670'));
        assert.equal(o.currentStatus.id, o.currentStatusId);
        assert.equal(o.statuses.at(-1).id, o.currentStatusId);
        assert.equal(o.postomat.id, o.postomatId);
        assert.deepEqual(
          o.passwords.map((p: any) => p.type),
          ['DOWN'],
        );
        assert.equal(res.body.aggregate._sum.price, ORDERS * 123.45);
      });
    });

    describe('directories without a page', () => {
      const COUNTRIES = 700;
      const DISTRICTS = 1_500;
      let countryIds: string[];
      before(async () => {
        countryIds = await seedManyPlaces(storage.db, COUNTRIES, DISTRICTS, cityId, '2025-01-01T00:00:00.000Z');
      });

      /** The list answered whole, and the same list read in pages of 300 (each answered in one piece). */
      async function wholeAndPaged(path: string) {
        const whole = await get(path);
        assert.equal(whole.status, 200);
        assert.ok(streamed(whole), `${path} is streamed`);
        assertNotBlocked(whole);
        const data: any[] = [];
        for (let page = 1; page <= Math.ceil(whole.body.total / 300); page++) {
          const one = await get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&pageSize=300`);
          assert.equal(one.headers.get('transfer-encoding'), null);
          data.push(...one.body.data);
        }
        assert.equal(
          whole.text,
          JSON.stringify({ total: whole.body.total, data }),
          `${path} is its pages put together`,
        );
        return whole.body;
      }

      it('GET /country?withCities=true: every active country with its active cities, grouped once per batch', async () => {
        const from = log.statements.length;
        const res = await get('/country?withCities=true');
        assert.equal(res.status, 200);
        assert.ok(streamed(res));
        assertNotBlocked(res);
        assert.equal(res.body.total, COUNTRIES + 1);
        assert.deepEqual(
          res.body.data.slice(0, COUNTRIES).map((c: any) => c.id),
          countryIds,
          'by title',
        );
        for (const c of res.body.data.slice(0, COUNTRIES))
          assert.deepEqual(
            c.cities.map((x: any) => [x.title, x.countryId]),
            [
              ['Central', c.id],
              ['North', c.id],
            ],
          );
        assert.deepEqual(
          res.body.data[COUNTRIES].cities.map((x: any) => x.title),
          ['Bishkek'],
        );
        const cityReads = log.on('city', from);
        assert.ok(cityReads.length <= batchesOf(COUNTRIES + 1), `${cityReads.length} statements on city`);
      });

      it('GET /city and /district/list: every active record by title then id, as their pages show them', async () => {
        const cities = await wholeAndPaged('/city?withCountry=true');
        assert.equal(cities.total, COUNTRIES * 2 + 1);
        assert.ok(cities.data.every((c: any) => c.country.id === c.countryId && c.isActive));
        const districts = await wholeAndPaged(`/district/list?cityId=${cityId}`);
        assert.equal(districts.total, DISTRICTS + 1 - DISTRICTS / 10);
        const keys = districts.data.map((d: any) => [d.title, d.id]);
        assert.deepEqual(
          keys,
          [...keys].sort((a: string[], b: string[]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1)),
        );
      });
    });

    describe('a storage failure', () => {
      it("before the first byte: the spec's error body", async () => {
        let seen = 0;
        log.failWhen = (s) => s.tables.includes('cell') && ++seen === 1;
        try {
          const res = await get('/postomat/list?withFreeCells=true');
          assert.equal(res.status, 500);
          const { requestId, ...body } = res.body;
          assert.deepEqual(body, {
            statusCode: 500,
            error: 'Internal Server Error',
            message: 'Internal Server Error',
            code: 'INTERNAL_SERVER_ERROR',
          });
          assert.equal(requestId, res.headers.get('x-request-id'), 'the error names its request');
        } finally {
          log.failWhen = undefined;
        }
      });

      it('in the middle of a streamed answer: the connection is cut, the body is incomplete, the error is logged', async () => {
        let seen = 0;
        log.failWhen = (s) => s.tables.includes('cell') && ++seen === 4;
        const before = logged.length;
        try {
          const res = await get('/postomat/list?withFreeCells=true');
          assert.equal(res.status, 200);
          assert.equal(res.complete, false);
          assert.equal(res.body, undefined, 'the client cannot mistake the cut answer for a whole one');
        } finally {
          log.failWhen = undefined;
        }
        assert.ok(
          logged.slice(before).some((l) => l.msg === 'request failed'),
          'the failure is logged',
        );
      });
    });

    it('a client that goes away mid-answer stops the reading', async () => {
      const from = log.statements.length;
      const controller = new AbortController();
      const res = await fetch(`${cloud.url}${BASE}/postomat/list?withFreeCells=true`, {
        headers: { authorization: `Bearer ${key}` },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      // Wait until the server has stopped reading lockers (none for 300 ms; the locker sync's
      // background statements go on).
      let count = -1;
      while (count !== log.on('postomat', from).length) {
        count = log.on('postomat', from).length;
        await new Promise((r) => setTimeout(r, 300));
      }
      const lockerReads = log.on('postomat', from);
      assert.ok(
        lockerReads.length < batchesOf(LOCKERS) / 2,
        `${lockerReads.length} statements on postomat after the client left`,
      );
    });
  });
}
