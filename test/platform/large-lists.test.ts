import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { ManualClock } from '../../shared/clock.ts';
import type { Db } from '../../cloud/storage/database.ts';
import { changeParcelStatus, createParcel } from '../../cloud/services/platform/parcels.ts';
import { createPaymentOrder } from '../../cloud/services/platform/payment-orders.ts';
import { LIST_BATCH } from '../../cloud/storage/batches.ts';
import { loggedStorage, StatementLog, timedGet, type TimedAnswer } from '../locker-api/list-probes.ts';

const COPIES = 1_200;
const MAX_BLOCK_MS = 250;
const CHUNK = 500;

/**
 * `copies` parcels like the templates (each with the template's status history), written with
 * multi-row inserts: the services' one-parcel path would take most of a minute on PostgreSQL.
 */
async function cloneParcels(db: Db, templates: number[], copies: number): Promise<void> {
  const rows = await db.selectFrom('parcel').selectAll().where('id', 'in', templates).orderBy('id').execute();
  const history = await db
    .selectFrom('parcel_status')
    .selectAll()
    .where('parcelId', 'in', templates)
    .orderBy('id')
    .execute();
  const copiesOf = rows.map((_, t) =>
    Array.from({ length: Math.ceil((copies - t) / rows.length) }, (_, k) => k * rows.length + t),
  );
  const parcels = Array.from({ length: copies }, (_, i) => {
    const { id, ...rest } = rows[i % rows.length];
    return { ...rest, trackCode: `BULK${String(i).padStart(5, '0')}`, currentStatusId: null };
  });
  for (let i = 0; i < parcels.length; i += CHUNK)
    await db
      .insertInto('parcel')
      .values(parcels.slice(i, i + CHUNK))
      .execute();
  const created = await db
    .selectFrom('parcel')
    .select(['id', 'trackCode'])
    .where('trackCode', 'like', 'BULK%')
    .execute();
  const idOf = new Map(created.map((p) => [Number(p.trackCode.slice(4)), p.id]));
  const statuses = rows.flatMap((t, k) =>
    copiesOf[k].flatMap((i) =>
      history.filter((s) => s.parcelId === t.id).map(({ id, ...s }) => ({ ...s, parcelId: idOf.get(i)! })),
    ),
  );
  for (let i = 0; i < statuses.length; i += CHUNK)
    await db
      .insertInto('parcel_status')
      .values(statuses.slice(i, i + CHUNK))
      .execute();
  await db
    .updateTable('parcel')
    .set((eb) => ({
      currentStatusId: eb
        .selectFrom('parcel_status as s')
        .select((x) => x.fn.max('s.id').as('m'))
        .whereRef('s.parcelId', '=', 'parcel.id'),
    }))
    .where('trackCode', 'like', 'BULK%')
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`large platform lists (${dialect.name})`, () => {
    const clock = new ManualClock('2026-03-10T09:00:00.000Z');
    const log = new StatementLog();
    let storage: TestStorage;
    let cloud: TestApp;
    let w: PlatformWorld;
    let templates: number[];
    const get = (path: string) =>
      timedGet(`${cloud.url}/api/v1/integrations${path}`, { 'x-api-token': w.keys.logist.key });
    const assertNotBlocked = (res: TimedAnswer) =>
      assert.ok(res.maxBlockMs < MAX_BLOCK_MS, `the event loop stood still for ${Math.round(res.maxBlockMs)} ms`);
    const streamed = (res: TimedAnswer) =>
      res.headers.get('content-length') === null && res.headers.get('transfer-encoding') === 'chunked';

    before(async () => {
      storage = await openTestStorage(dialect);
      const db = storage.db;
      const now = clock.now();
      w = await seedPlatformWorld(db, now);
      const base = {
        companyId: w.logist.id,
        weight: 1.25,
        price: 15_50,
        currency: 'KGS',
        clientId: w.aibek.id,
        supplierId: w.supplier.id,
        cargoTypeId: w.packageType.id,
        receiptCityId: w.urumqi.id,
        deliveryCityId: w.bishkek.id,
      };
      const waiting = await createParcel(
        db,
        {
          ...base,
          trackCode: 'TPLWAIT',
          description: 'Red sneakers',
          deliveryMethod: 'PICKUP',
          deliveryWarehouseId: w.pvz.id,
        },
        now,
      );
      let sent = await createParcel(
        db,
        {
          ...base,
          trackCode: 'TPLSENT',
          description: 'Steel kettle',
          deliveryMethod: 'WAREHOUSE',
          deliveryWarehouseId: w.depot.id,
        },
        now,
      );
      for (const [to, warehouseId, destinationWarehouseId] of [
        ['RECEIVED', w.store.id, null],
        ['READYTOSHIP', null, null],
        ['SENT', null, w.depot.id],
      ] as const) {
        sent = await changeParcelStatus(db, { parcelId: sent.id, to, warehouseId, destinationWarehouseId }, now);
      }
      let paid = await createParcel(
        db,
        {
          ...base,
          trackCode: 'TPLPAID',
          description: 'Laptop bag',
          deliveryMethod: 'WAREHOUSE',
          deliveryWarehouseId: w.depot.id,
        },
        now,
      );
      paid = await changeParcelStatus(
        db,
        { parcelId: paid.id, to: 'ARRIVED', warehouseId: w.depot.id, destinationWarehouseId: null },
        now,
      );
      await createPaymentOrder(
        db,
        {
          companyId: w.logist.id,
          clientId: w.aibek.id,
          amount: 100_00,
          currency: 'KGS',
          isPaid: true,
          parcelIds: [paid.id],
        },
        now,
      );
      templates = [waiting.id, sent.id, paid.id];
      await cloneParcels(db, templates, COPIES);
      cloud = await startTestApp(dialect, { reuse: loggedStorage(storage, log), clock });
      await get('/logistic-company/parcel/list?pageSize=50');
    });
    after(() => (cloud ? cloud.stop() : storage?.destroy()));

    describe('GET /logistic-company/supplier/{id}/parcels without page: every parcel', () => {
      it('is streamed in batches, the same as its pages answered in one piece', async () => {
        const from = log.statements.length;
        const res = await get(`/logistic-company/supplier/${w.supplier.id}/parcels`);
        assert.equal(res.status, 200);
        assert.ok(streamed(res), 'more than one batch is streamed');
        assertNotBlocked(res);
        const total = COPIES + templates.length;
        assert.equal(res.body.total, total);
        assert.equal(res.body.data.length, total);
        const ids = res.body.data.map((p: any) => p.id);
        assert.ok(
          ids.every((id: number, k: number) => k === 0 || id < ids[k - 1]),
          'newest (highest id) first',
        );

        const parcelReads = log.on('parcel', from);
        assert.ok(
          Math.max(...parcelReads.map((s) => s.rows)) <= LIST_BATCH + 1,
          'no statement reads more than a batch of parcels',
        );
        const historyReads = log.on('parcel_status', from);
        assert.ok(
          historyReads.length <= Math.ceil(total / LIST_BATCH),
          `${historyReads.length} statements on parcel_status`,
        );

        const pages: any[] = [];
        for (let page = 1; page <= Math.ceil(total / 400); page++) {
          const one = await get(`/logistic-company/supplier/${w.supplier.id}/parcels?page=${page}&pageSize=400`);
          assert.equal(
            Number(one.headers.get('content-length')),
            Buffer.byteLength(one.text),
            'a page of one batch is answered in one piece',
          );
          assert.equal(one.body.total, total);
          pages.push(...one.body.data);
        }
        assert.equal(res.text, JSON.stringify({ total, data: pages }));

        const sent = res.body.data.find((p: any) => p.trackCode === 'BULK00001');
        assert.deepEqual(
          sent.statuses.map((s: any) => s.status),
          ['AWAITING', 'RECEIVED', 'READYTOSHIP', 'SENT'],
        );
        assert.deepEqual(
          [sent.currentStatus.id, sent.currentStatus.destinationWarehouse.title],
          [sent.statuses[3].id, 'Bishkek depot'],
        );
        const paid = res.body.data.find((p: any) => p.trackCode === 'BULK00002');
        assert.deepEqual(
          [paid.order.isPaid, paid.client.name, paid.currentWarehouse.title],
          [true, 'Aibek', 'Bishkek depot'],
        );
      });
    });

    describe('GET /logistic-company/parcel/list with a large pageSize', () => {
      it("streams every parcel of the company's clients, as the supplier list shows them", async () => {
        const res = await get('/logistic-company/parcel/list?pageSize=100000');
        assert.equal(res.status, 200);
        assert.ok(streamed(res));
        assertNotBlocked(res);
        const supplier = await get(`/logistic-company/supplier/${w.supplier.id}/parcels`);
        assert.equal(res.text, supplier.text);
        const second = await get('/logistic-company/parcel/list?page=2&pageSize=700');
        assert.equal(second.body.total, COPIES + templates.length);
        assert.deepEqual(second.body.data, res.body.data.slice(700, 1400));
      });
    });
  });
}
