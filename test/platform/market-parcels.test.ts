import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { finishOrder, placeOrder } from '../helpers/locker-world.ts';
import { marketClient, seedMarketWorld, ORDER_PRICE, type MarketWorld } from '../helpers/market-world.ts';
import { changeParcelStatus, createParcel } from '../../cloud/services/platform/parcels.ts';
import { createPlatformCity } from '../../cloud/services/platform/directories.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { LOCKER_ACCESS_OFF } from '../../cloud/platform-api/locker-side.ts';

for (const dialect of DIALECTS) {
  describe(`marketplace parcels (${dialect.name})`, () => {
    let cloud: TestCloud;
    let world: MarketWorld;
    let m: ReturnType<typeof marketClient>;
    before(async () => {
      cloud = await startTestCloud(dialect);
      world = await seedMarketWorld(cloud);
      m = marketClient(cloud, world);
    });
    after(() => cloud.stop());
    const db = () => cloud.storage.db;
    const count = async (table: 'parcel' | 'platform_client' | 'supplier' | 'locker_order') =>
      Number(
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const created = async (body: unknown, options?: Parameters<typeof m.create>[1]) => {
      const res = await m.create(body, options);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const refused = async (
      body: unknown,
      status: number,
      message: string,
      options?: Parameters<typeof m.create>[1],
    ) => {
      const before = await count('parcel');
      const res = await m.create(body, options);
      assert.deepEqual([res.status, res.body.message], [status, message], JSON.stringify(body));
      assert.equal(await count('parcel'), before, 'a refused creation writes nothing');
      return res.body;
    };

    describe('POST /parcel/create', () => {
      it('PICKUP: the parcel (AWAITING) of the partner, for the marketplace; receiver and sender registered with the partner', async () => {
        const { w } = world;
        const parcel = await created(m.body());
        assert.match(parcel.trackCode, /^PL[0-9A-Z]{10}$/);
        assert.deepEqual(
          [
            parcel.status,
            parcel.deliveryMethod,
            parcel.deliveryWarehouseId,
            parcel.postomatId,
            parcel.postomatOrderId,
            parcel.weight,
            parcel.price,
            parcel.currency,
          ],
          ['AWAITING', 'PICKUP', w.pvz.id, null, null, 1.25, 12.5, 'KGS'],
        );
        assert.deepEqual(
          [parcel.companyId, parcel.partnerCompanyId, parcel.receiptCityId, parcel.deliveryCityId],
          [w.logist.id, w.market.id, w.urumqi.id, w.bishkek.id],
        );
        const client = await db()
          .selectFrom('platform_client')
          .selectAll()
          .where('id', '=', parcel.clientId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          [client.companyId, client.phone, client.name, client.cityId, client.code],
          [w.logist.id, '+996700100001', 'Aida', w.bishkek.id, 3],
        );
        const supplier = await db()
          .selectFrom('supplier')
          .selectAll()
          .where('id', '=', parcel.supplierId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          [supplier.companyId, supplier.phone, supplier.name],
          [w.logist.id, '+8613900000001', 'Yiwu Shoes'],
        );
        const status = await db()
          .selectFrom('parcel_status')
          .select('status')
          .where('parcelId', '=', parcel.id)
          .execute();
        assert.deepEqual(
          status.map((s) => s.status),
          ['AWAITING'],
        );
        assert.deepEqual(
          (await m.request('GET', `/parcel/track-code/${parcel.trackCode}`)).body,
          parcel,
          'the track-code read has the shape of the creation',
        );
      });

      it('the same phones again: the client and supplier are reused', async () => {
        const clients = await count('platform_client');
        const suppliers = await count('supplier');
        const a = await created(m.body({ receiver: m.party('+996700100001', m.bishkek, 'Aida again') }));
        const b = await created(m.body());
        assert.equal(a.clientId, b.clientId);
        assert.equal(a.supplierId, b.supplierId);
        assert.deepEqual([await count('platform_client'), await count('supplier')], [clients, suppliers]);
      });

      it('two different requests at the same moment with one new phone register one client', async () => {
        const phone = '+996700199999';
        const [a, b, c] = await Promise.all(
          [1.1, 2.2, 3.3].map((weight) =>
            created(
              m.body({ weight, receiver: m.party(phone, m.bishkek), sender: m.party('+8613900000077', m.urumqi) }),
            ),
          ),
        );
        assert.equal(new Set([a.clientId, b.clientId, c.clientId]).size, 1);
        const clients = await db().selectFrom('platform_client').select('id').where('phone', '=', phone).execute();
        const suppliers = await db()
          .selectFrom('supplier')
          .select('id')
          .where('phone', '=', '+8613900000077')
          .execute();
        assert.deepEqual([clients.length, suppliers.length], [1, 1]);
      });

      it('POSTOMAT without createPostomatOrder: the parcel names the locker, no order yet', async () => {
        const orders = await count('locker_order');
        const parcel = await created(
          m.lockerBody(world.lw.mid.id, { createPostomatOrder: false, trackCode: 'SHOP-0001' }),
        );
        assert.deepEqual(
          [
            parcel.trackCode,
            parcel.deliveryMethod,
            parcel.postomatId,
            parcel.postomatOrderId,
            parcel.deliveryWarehouseId,
          ],
          ['SHOP-0001', 'POSTOMAT', world.lw.mid.id, null, null],
        );
        assert.equal(await count('locker_order'), orders);
      });

      it("createPostomatOrder: { parcel, postomatOrder, downCode }; the order is the locker company's, paid, without SMS", async () => {
        const { w, lw } = world;
        const balance = async () =>
          (
            await db()
              .selectFrom('locker_company')
              .select('balance')
              .where('id', '=', w.lockerCompany.id)
              .executeTakeFirstOrThrow()
          ).balance;
        const before = await balance();
        const res = await created(m.lockerBody(lw.near.id));
        assert.deepEqual(Object.keys(res).sort(), ['downCode', 'parcel', 'postomatOrder']);
        const { parcel, postomatOrder: order, downCode } = res;
        assert.deepEqual(
          [parcel.postomatOrderId, parcel.postomatId, parcel.status],
          [order.id, lw.near.id, 'AWAITING'],
        );
        assert.deepEqual(
          [
            order.companyId,
            order.postomatId,
            order.sendMessage,
            order.paidAmount,
            order.notPaidAmount,
            order.customData,
            order.weight,
          ],
          [w.lockerCompany.id, lw.near.id, false, ORDER_PRICE / 100, 0, parcel.trackCode, 0.5],
        );
        assert.equal(await balance(), before - ORDER_PRICE, 'paid from the balance');
        assert.deepEqual([downCode.type, downCode.orderId], ['DOWN', order.id]);
        assert.match(downCode.password, /^\d{4}$/);
        const viaLocker = await cloud.request('GET', `/api/v1/integrations/postomat/order/${order.id}/down-code`, {
          headers: { 'x-api-token': world.keys.market },
        });
        assert.deepEqual(viaLocker.body, downCode);
        const recipient = await db()
          .selectFrom('recipient')
          .select('phone')
          .where('id', '=', order.toUserId)
          .executeTakeFirstOrThrow();
        assert.equal(recipient.phone, '+996700100002');
        assert.deepEqual((await m.request('GET', `/parcel/track-code/${parcel.trackCode}`)).body, res);
      });

      it('400: validation, comma-separated', async () => {
        const cases: Array<[unknown, string]> = [
          [
            {},
            "body must have required property 'deliveryMethod', body must have required property 'weight', body must have required property 'currency', body must have required property 'receiver', body must have required property 'sender'",
          ],
          [
            m.body({ weight: 0.009, currency: 'KG', price: -1 }),
            'body/weight must be >= 0.01, body/price must be >= 0, body/currency must NOT have fewer than 3 characters',
          ],
          [m.body({ deliveryMethod: 'COURIER' }), 'body/deliveryMethod must be equal to one of the allowed values'],
          [m.body({ currency: '1$2' }), 'body/currency must match pattern "^[A-Za-z]{3}$"'],
          [
            m.body({ receiver: { name: 'x', phone: '+1' } }),
            "body/receiver must have required property 'address', body/receiver must have required property 'country', body/receiver must have required property 'city'",
          ],
          [m.body({ warehouseId: undefined }), "body must have required property 'warehouseId'"],
          [m.lockerBody(world.lw.near.id, { postomatId: undefined }), "body must have required property 'postomatId'"],
          [
            m.lockerBody(world.lw.near.id, { receiver: m.party('0700 100 002', m.bishkek) }),
            'body/receiver/phone must match pattern "^\\+\\d+$" (at most 20 characters) for a locker order',
          ],
          [
            m.body({ warehouseId: 0, createPostomatOrder: 'yes' }),
            'body/warehouseId must be >= 1, body/createPostomatOrder must be boolean',
          ],
        ];
        for (const [body, message] of cases) {
          const res = await refused(body, 400, message);
          assert.equal(res.code, 'FST_ERR_VALIDATION');
        }
      });

      it('400 for places that are not an active city of the given country', async () => {
        const closed = await createPlatformCity(
          db(),
          { countryId: world.w.kg.id, title: 'Closed', isActive: false },
          new Date(),
        );
        await refused(
          m.body({ receiver: m.party('+996700100001', { country: world.w.kg.id, city: world.w.urumqi.id }) }),
          400,
          `body/receiver/city must be a city of country ${world.w.kg.id}`,
        );
        await refused(
          m.body({ sender: m.party('+8613900000001', { country: 999, city: closed.id }) }),
          400,
          'body/sender/country must be the id of an active country, body/sender/city must be the id of an active city',
        );
      });

      it('400 IDEMPOTENCY_KEY_REQUIRED without the header or with an empty one; 400 for a key over 255 characters', async () => {
        for (const key of [null, '', '   ']) {
          const res = await refused(m.body(), 400, 'IDEMPOTENCY_KEY_REQUIRED', { key });
          assert.deepEqual(res, { statusCode: 400, error: 'Bad Request', message: 'IDEMPOTENCY_KEY_REQUIRED' });
        }
        await refused(m.body(), 400, 'headers/idempotency-key must NOT have more than 255 characters', {
          key: 'k'.repeat(256),
        });
      });

      it('404 POSTOMAT_NOT_FOUND for a missing or inactive locker', async () => {
        for (const id of ['zz000000000000000000000000', world.lw.inactive.id]) {
          await refused(m.lockerBody(id), 404, 'POSTOMAT_NOT_FOUND');
          await refused(m.lockerBody(id, { createPostomatOrder: false }), 404, 'POSTOMAT_NOT_FOUND');
        }
      });

      it("404 WAREHOUSE_NOT_FOUND for a missing pickup point, a warehouse that is not one, or another network's", async () => {
        const foreign = await createWarehouse(
          db(),
          { companyId: world.w.otherLogist.id, title: 'Osh Express point', isPickupPoint: true },
          new Date(),
        );
        for (const id of [9999, world.w.depot.id, foreign.id])
          await refused(m.body({ warehouseId: id }), 404, 'WAREHOUSE_NOT_FOUND');
      });

      it('409 TRACK_CODE_ALREADY_EXISTS for a track code in use, whoever owns it', async () => {
        await createParcel(
          db(),
          { companyId: world.w.otherLogist.id, trackCode: 'TAKEN-1', weight: 1, currency: 'USD' },
          new Date(),
        );
        await refused(m.body({ trackCode: 'TAKEN-1' }), 409, 'TRACK_CODE_ALREADY_EXISTS');
        await refused(m.body({ trackCode: 'SHOP-0001' }), 409, 'TRACK_CODE_ALREADY_EXISTS');
      });

      it('404 CODE_NOT_FOUND for a marketplace with no partner to register its clients with', async () => {
        const clients = await count('platform_client');
        await refused(m.lockerBody(world.lw.near.id, { createPostomatOrder: false }), 404, 'CODE_NOT_FOUND', {
          apiKey: world.keys.lonely,
        });
        assert.equal(await count('platform_client'), clients);
      });

      it('502 "Postomat provider error" when the locker side refuses: no locker access, a balance that cannot pay', async () => {
        const clients = await count('platform_client');
        for (const apiKey of [world.keys.quick, world.keys.poor]) {
          const res = await refused(
            m.lockerBody(world.lw.near.id, { receiver: m.party('+996700155555', m.bishkek) }),
            502,
            'Postomat provider error',
            { apiKey },
          );
          assert.deepEqual(res, { statusCode: 502, error: 'Bad Gateway', message: 'Postomat provider error' });
        }
        assert.equal(await count('platform_client'), clients, 'the clients registered on the way are rolled back');
        assert.equal(
          (await m.create(m.lockerBody(world.lw.near.id, { createPostomatOrder: false }), { apiKey: world.keys.quick }))
            .status,
          200,
          'a locker parcel without an order needs no locker access',
        );
      });

      it('403 FORBIDDEN for a company that is not a marketplace', async () => {
        await refused(m.body(), 403, 'FORBIDDEN', { apiKey: world.w.keys.logist.key });
      });
    });

    describe('GET /parcel/track-code/{trackCode}', () => {
      it("404 PARCEL_NOT_FOUND for a missing parcel or another company's", async () => {
        const theirs = await created(m.lockerBody(world.lw.near.id, { createPostomatOrder: false }), {
          apiKey: world.keys.quick,
        });
        for (const [code, apiKey] of [
          ['NO-SUCH', world.keys.market],
          [theirs.trackCode, world.keys.market],
          ['TAKEN-1', world.keys.market],
        ]) {
          for (const suffix of ['', '/status']) {
            const res = await m.request('GET', `/parcel/track-code/${code}${suffix}`, { apiKey });
            assert.deepEqual(res.body, { statusCode: 404, error: 'Not Found', message: 'PARCEL_NOT_FOUND' });
          }
        }
        assert.equal(
          (await m.request('GET', `/parcel/track-code/${theirs.trackCode}`, { apiKey: world.keys.quick })).body.id,
          theirs.id,
        );
      });
    });

    describe('GET /parcel/track-code/{trackCode}/status', () => {
      const status = async (trackCode: string) => {
        const res = await m.request('GET', `/parcel/track-code/${trackCode}/status`);
        assert.equal(res.status, 200);
        assert.equal(res.body.trackCode, trackCode);
        return res.body.status;
      };

      it('a pickup parcel: CREATED on the way, ARRIVED at the pickup point, TRANSFERRED_TO_CLIENT once handed over (staff statuses)', async () => {
        const { w } = world;
        const parcel = await created(m.body());
        const move = (to: any, warehouseId?: number) =>
          changeParcelStatus(db(), { parcelId: parcel.id, to, warehouseId }, cloud.clock.now());
        const seen = [await status(parcel.trackCode)];
        await move('RECEIVED', w.store.id);
        seen.push(await status(parcel.trackCode));
        await move('READYTOSHIP', w.store.id);
        await move('SENT');
        seen.push(await status(parcel.trackCode));
        await move('RECEIVED', w.pvz.id);
        seen.push(await status(parcel.trackCode));
        await move('TRANSFERRED');
        seen.push(await status(parcel.trackCode));
        assert.deepEqual(seen, ['CREATED', 'CREATED', 'CREATED', 'ARRIVED', 'TRANSFERRED_TO_CLIENT']);
      });

      it('ARRIVED status at a warehouse counts as ARRIVED', async () => {
        const parcel = await created(m.body());
        await changeParcelStatus(
          db(),
          { parcelId: parcel.id, to: 'ARRIVED', warehouseId: world.w.depot.id },
          cloud.clock.now(),
        );
        assert.equal(await status(parcel.trackCode), 'ARRIVED');
      });

      it('a locker parcel follows its order: placement is ARRIVED, collection TRANSFERRED_TO_CLIENT', async () => {
        const { parcel, postomatOrder } = await created(m.lockerBody(world.lw.mid.id));
        const seen = [await status(parcel.trackCode)];
        await placeOrder(cloud.storage, postomatOrder.id, world.lw.mid.cells[0].id, cloud.clock.now());
        seen.push(await status(parcel.trackCode));
        await finishOrder(cloud.storage, postomatOrder.id, 'COMPLETED', cloud.clock.now());
        seen.push(await status(parcel.trackCode));
        assert.deepEqual(seen, ['CREATED', 'ARRIVED', 'TRANSFERRED_TO_CLIENT']);
      });
    });

    describe('locker orders', () => {
      it("GET /order/list: the market's locker orders in the locker format; page and pageSize (1-500) required", async () => {
        const res = await m.request('GET', '/order/list?page=1&pageSize=2&withCurrentStatus=true');
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body,
          (
            await cloud.request(
              'GET',
              '/api/v1/integrations/postomat/order/list?page=1&pageSize=2&withCurrentStatus=true',
              { headers: { 'x-api-token': world.keys.market } },
            )
          ).body,
        );
        assert.ok(res.body.total >= 2);
        assert.ok(res.body.data.every((o: any) => o.companyId === world.w.lockerCompany.id && o.currentStatus));
        for (const q of ['page=1', 'pageSize=1', 'page=1&pageSize=501', 'page=1&pageSize=5&status=NEW'])
          assert.equal((await m.request('GET', `/order/list?${q}`)).status, 400, q);
      });

      it('GET /order/list: 500 when the locker side fails (no locker access)', async () => {
        const res = await m.request('GET', '/order/list?page=1&pageSize=5', { apiKey: world.keys.quick });
        assert.deepEqual(res.body, { statusCode: 500, error: 'Internal Server Error', message: LOCKER_ACCESS_OFF });
      });

      it("GET /order/{id}: the marketplace's parcel delivered by that order, with postomatOrder and its flags", async () => {
        const { parcel, postomatOrder } = await created(m.lockerBody(world.lw.far.id));
        const res = await m.request('GET', `/order/${postomatOrder.id}?withCurrentStatus=true&withPostomat=true`);
        assert.equal(res.status, 200);
        const { postomatOrder: order, ...rest } = res.body;
        assert.deepEqual(rest, parcel);
        assert.deepEqual(
          [order.id, order.currentStatus.type, order.postomat.id, order.passwords.map((p: any) => p.type)],
          [postomatOrder.id, 'CREATED', world.lw.far.id, ['DOWN']],
        );
      });

      it('GET /order/{id}: 404 ORDER_NOT_FOUND for an order that delivers none of its parcels', async () => {
        const own = await cloud.request('POST', '/api/v1/integrations/postomat/order/create', {
          headers: { 'x-api-token': world.keys.market },
          body: { toUserPhone: '+996700100003', postomatId: world.lw.near.id, weight: 1, days: 1 },
        });
        assert.equal(own.status, 201);
        const { postomatOrder } = await created(m.lockerBody(world.lw.near.id));
        for (const [id, apiKey] of [
          [own.body.id, world.keys.market],
          ['nope', world.keys.market],
          [postomatOrder.id, world.keys.quick],
        ]) {
          const res = await m.request('GET', `/order/${id}`, { apiKey });
          assert.deepEqual(res.body, { statusCode: 404, error: 'Not Found', message: 'ORDER_NOT_FOUND' });
        }
      });
    });
  });
}
