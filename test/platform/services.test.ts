import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { seedPlatformWorld, type PlatformWorld } from '../helpers/platform-world.ts';
import { DomainError } from '../../cloud/domain/errors.ts';
import { verifyPassword, hashApiKey } from '../../cloud/domain/secrets.ts';
import {
  createClient,
  findOrCreateClientByPhone,
  findOrCreateSupplierByPhone,
  updateClient,
} from '../../cloud/services/platform/clients.ts';
import {
  addCompanyCode,
  addPartnership,
  platformCompanyDetails,
  setLockerAccess,
  updatePlatformCompany,
} from '../../cloud/services/platform/companies.ts';
import {
  createPlatformApiKey,
  deletePlatformApiKey,
  findApiKeyCaller,
  listPlatformApiKeys,
} from '../../cloud/services/platform/api-keys.ts';
import { createPlatformUser, updatePlatformUser } from '../../cloud/services/platform/users.ts';
import {
  changeParcelStatus,
  createParcel,
  parcelHistory,
  redirectParcel,
} from '../../cloud/services/platform/parcels.ts';
import { changeCargoStatus, createCargo } from '../../cloud/services/platform/cargo.ts';
import { createPaymentOrder, markPaymentOrderPaid } from '../../cloud/services/platform/payment-orders.ts';
import { updateWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { listCargoTypes } from '../../cloud/services/platform/cargo-types.ts';

const rejects = (p: Promise<unknown>, code: string, message?: RegExp) =>
  assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof DomainError, String(err));
    assert.equal(err.code, code);
    if (message) assert.match(err.message, message);
    return true;
  });

for (const dialect of DIALECTS) {
  describe(`platform services (${dialect.name})`, () => {
    let storage: TestStorage;
    let w: PlatformWorld;
    const now = new Date('2026-03-01T09:00:00.000Z');
    before(async () => {
      storage = await openTestStorage(dialect);
      w = await seedPlatformWorld(storage.db, now);
    });
    after(() => storage.destroy());
    const db = () => storage.db;

    describe('companies', () => {
      it('the first company gets id 1 and its full view lists codes, cargo and delivery types, partners', async () => {
        assert.equal(w.logist.id, 1);
        const d = await platformCompanyDetails(db(), w.logist.id);
        assert.deepEqual(
          d.codes.map((c) => c.title),
          ['SRL', 'SRLA'],
        );
        assert.deepEqual(
          d.cargoTypes.map((t) => t.type),
          ['CARGO', 'CAR'],
          'code names bring their cargo types',
        );
        assert.deepEqual(
          d.deliveryTypes.map((t) => t.title),
          ['Air', 'Road'],
        );
        assert.deepEqual(d.partnerOfIds, [w.warehouseCo.id, w.market.id]);
        assert.equal(d.company.countryId, w.kg.id);
      });

      it('code names are unique across companies, upper-cased', async () => {
        await rejects(
          addCompanyCode(db(), w.otherLogist.id, 'srl', w.cargoType.id, new Date()),
          'NOT_ACCEPTABLE',
          /SRL is taken by company 1/,
        );
        const c = await addCompanyCode(db(), w.otherLogist.id, 'oshc', w.cargoType.id, new Date());
        assert.equal(c.title, 'OSHC');
      });

      it('partnerships follow company types', async () => {
        await rejects(
          addPartnership(db(), w.logist.id, w.otherLogist.id, new Date()),
          'NOT_ACCEPTABLE',
          /LOGIST company has no partners/,
        );
        await rejects(
          addPartnership(db(), w.warehouseCo.id, w.courier.id, new Date()),
          'NOT_ACCEPTABLE',
          /partners with LOGIST companies/,
        );
        await addPartnership(db(), w.warehouseCo.id, w.logist.id, new Date()); // again: no duplicate, no error
        assert.deepEqual((await platformCompanyDetails(db(), w.warehouseCo.id)).partnerIds, [w.logist.id]);
      });

      it('locker access needs a linked locker company and is switched by the operator', async () => {
        await rejects(
          setLockerAccess(db(), w.courier.id, { enabled: true }, new Date()),
          'NOT_ACCEPTABLE',
          /linked locker company/,
        );
        await rejects(
          setLockerAccess(db(), w.courier.id, { lockerCompanyId: 'nosuchcompany', enabled: true }, new Date()),
          'COMPANY_NOT_FOUND',
        );
        const off = await setLockerAccess(db(), w.market.id, { enabled: false }, new Date());
        assert.deepEqual([off.lockerCompanyId, off.lockerAccess], [w.lockerCompany.id, 0]);
        const on = await setLockerAccess(db(), w.market.id, { enabled: true }, new Date());
        assert.equal(on.lockerAccess, 1);
      });
    });

    describe('users and keys', () => {
      it('stores emails lower-cased, passwords only as scrypt hashes, refuses duplicates and short passwords', async () => {
        const row = await db()
          .selectFrom('platform_user')
          .selectAll()
          .where('id', '=', w.admin.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.email, 'admin@silkroad.example');
        assert.match(row.passwordHash, /^scrypt\$/);
        assert.ok(verifyPassword('correct horse battery', row.passwordHash));
        assert.ok(!('passwordHash' in w.admin), 'services never hand the hash out');
        await rejects(
          createPlatformUser(
            db(),
            { email: ' ADMIN@silkroad.example', password: 'whatever123', companyId: w.logist.id },
            new Date(),
          ),
          'NOT_ACCEPTABLE',
          /exists/,
        );
        await rejects(
          createPlatformUser(db(), { email: 'new@x.example', password: 'short', companyId: w.logist.id }, new Date()),
          'NOT_ACCEPTABLE',
          /at least 8/,
        );
      });

      it('a password change ends the refresh tokens issued so far', async () => {
        await db()
          .insertInto('refresh_token')
          .values({
            id: 'rt-1',
            userId: w.user.id,
            expiresAt: '2026-03-11T00:00:00.000Z',
            usedAt: null,
            createdAt: now.toISOString(),
          })
          .execute();
        await updatePlatformUser(db(), w.user.id, { password: 'another password' }, now);
        const rt = await db()
          .selectFrom('refresh_token')
          .selectAll()
          .where('id', '=', 'rt-1')
          .executeTakeFirstOrThrow();
        assert.equal(rt.usedAt, now.toISOString());
      });

      it('keys are readable in lists, found by hash, and deleted only by their company', async () => {
        const k = await createPlatformApiKey(db(), w.logist.id, 'second', now);
        assert.match(k.key, /^plp_/);
        const stored = await db()
          .selectFrom('platform_api_key')
          .select('keyHash')
          .where('id', '=', k.id)
          .executeTakeFirstOrThrow();
        assert.equal(stored.keyHash, hashApiKey(k.key));
        assert.deepEqual(await findApiKeyCaller(db(), k.key), {
          keyId: k.id,
          companyId: w.logist.id,
          companyType: 'LOGIST',
        });
        assert.equal(await findApiKeyCaller(db(), `${k.key}x`), undefined);
        const page = await listPlatformApiKeys(db(), w.logist.id, { limit: 1, offset: 0 });
        assert.deepEqual([page.total, page.data.length, page.data[0].key], [2, 1, k.key]);
        await rejects(deletePlatformApiKey(db(), w.otherLogist.id, k.id), 'NOT_ACCEPTABLE');
        await rejects(deletePlatformApiKey(db(), w.logist.id, 999_999), 'NOT_FOUND');
        await deletePlatformApiKey(db(), w.logist.id, k.id);
        assert.equal(await findApiKeyCaller(db(), k.key), undefined);
      });

      it("a switched-off company's keys find nobody", async () => {
        await updatePlatformCompany(db(), w.courier.id, { isActive: false }, now);
        assert.equal(await findApiKeyCaller(db(), w.keys.courier.key), undefined);
        await updatePlatformCompany(db(), w.courier.id, { isActive: true }, now);
        assert.equal((await findApiKeyCaller(db(), w.keys.courier.key))?.companyId, w.courier.id);
      });
    });

    describe('clients and suppliers', () => {
      it('codes count up per company; a requested code is kept unique', async () => {
        assert.deepEqual([w.aibek.code, w.bermet.code, w.stranger.code], [1, 2, 1]);
        const kept = await createClient(db(), { companyId: w.logist.id, name: 'Ledger', code: 100 }, now);
        assert.equal(kept.code, 100);
        assert.equal((await createClient(db(), { companyId: w.logist.id, name: 'Next' }, now)).code, 101);
        await rejects(
          createClient(db(), { companyId: w.logist.id, code: 100 }, now),
          'NOT_ACCEPTABLE',
          /code 100 is taken/,
        );
      });

      it('concurrent creations each get their own code', async () => {
        const made = await Promise.all(
          Array.from({ length: 8 }, (_, i) => createClient(db(), { companyId: w.otherLogist.id, name: `C${i}` }, now)),
        );
        const codes = made.map((c) => c.code).sort((a, b) => a - b);
        assert.equal(new Set(codes).size, 8);
      });

      it('a client city must lie in its country', async () => {
        await rejects(
          createClient(db(), { companyId: w.logist.id, countryId: w.cn.id, cityId: w.osh.id }, now),
          'NOT_ACCEPTABLE',
          /not in country/,
        );
        const c = await createClient(db(), { companyId: w.logist.id, cityId: w.osh.id }, now);
        assert.equal(c.countryId, w.kg.id);
      });

      it('find-or-create by phone reuses clients and suppliers, also when racing', async () => {
        const a = await findOrCreateClientByPhone(
          db(),
          { companyId: w.logist.id, phone: '+996555000001', name: 'ignored' },
          now,
        );
        assert.equal(a.id, w.aibek.id);
        const [s1, s2] = await Promise.all([
          findOrCreateSupplierByPhone(db(), { companyId: w.market.id, phone: '+996700111222', name: 'Shop' }, now),
          findOrCreateSupplierByPhone(db(), { companyId: w.market.id, phone: '+996700111222', name: 'Shop' }, now),
        ]);
        assert.equal(s1.id, s2.id);
        assert.equal(
          (await findOrCreateSupplierByPhone(db(), { companyId: w.logist.id, phone: '+8613800000000' }, now)).id,
          w.supplier.id,
        );
      });
    });

    describe('parcels', () => {
      it('a new parcel is AWAITING with a status record, the client copied and a search text', async () => {
        const p = await createParcel(
          db(),
          {
            companyId: w.logist.id,
            weight: 1.5,
            price: 25_000,
            currency: 'kgs',
            description: 'Blue Kettle',
            clientId: w.aibek.id,
            supplierId: w.supplier.id,
            cargoTypeId: w.carType.id,
            deliveryMethod: 'WAREHOUSE',
            deliveryWarehouseId: w.depot.id,
            receiptCityId: w.urumqi.id,
            deliveryCityId: w.bishkek.id,
          },
          now,
        );
        assert.match(p.trackCode, /^PL/);
        assert.deepEqual(
          [p.status, p.currency, p.clientCompanyId, p.clientCode, p.isPaid],
          ['AWAITING', 'KGS', w.logist.id, 1, null],
        );
        assert.equal(
          p.searchText,
          `${p.trackCode.toLowerCase()}\nblue kettle\nsrla`,
          "its own parts; the client's name and phone are the client's",
        );
        const [first] = await parcelHistory(db(), p.id);
        assert.deepEqual(
          [first.id, first.status, first.originCityId, first.destinationWarehouseId],
          [p.currentStatusId, 'AWAITING', w.urumqi.id, w.depot.id],
        );
      });

      it('a taken track code is TRACK_CODE_ALREADY_EXISTS; bad references are named', async () => {
        await createParcel(db(), { companyId: w.logist.id, trackCode: 'TC-1', weight: 1, currency: 'KGS' }, now);
        await rejects(
          createParcel(db(), { companyId: w.logist.id, trackCode: 'TC-1', weight: 1, currency: 'KGS' }, now),
          'TRACK_CODE_ALREADY_EXISTS',
        );
        await rejects(
          createParcel(db(), { companyId: w.logist.id, weight: 1, currency: 'KGS', clientId: 99_999 }, now),
          'CLIENT_NOT_FOUND',
        );
        await rejects(
          createParcel(db(), { companyId: w.logist.id, weight: 1, currency: 'KGS', originWarehouseId: 99_999 }, now),
          'WAREHOUSE_NOT_FOUND',
        );
        await rejects(
          createParcel(db(), { companyId: w.logist.id, weight: 1, currency: 'KG' }, now),
          'NOT_ACCEPTABLE',
          /ISO 4217/,
        );
        await rejects(
          createParcel(db(), { companyId: w.logist.id, weight: 1, currency: 'KGS', postomatId: 'nosuchlocker' }, now),
          'POSTOMAT_NOT_FOUND',
        );
      });

      it('walks the operator flow to a pickup point, filed for the list filters at each step', async () => {
        const p = await createParcel(
          db(),
          {
            companyId: w.logist.id,
            weight: 2,
            currency: 'KGS',
            clientId: w.bermet.id,
            deliveryMethod: 'PICKUP',
            deliveryWarehouseId: w.pvz.id,
          },
          now,
        );
        let x = await changeParcelStatus(
          db(),
          { parcelId: p.id, to: 'RECEIVED', warehouseId: w.store.id, userId: w.user.id },
          now,
        );
        assert.deepEqual(
          [x.status, x.currentWarehouseId, x.originWarehouseId, x.atPickupPoint, x.atFinalPoint],
          ['RECEIVED', w.store.id, w.store.id, 0, 0],
        );
        x = await changeParcelStatus(db(), { parcelId: p.id, to: 'READYTOSHIP' }, now);
        x = await changeParcelStatus(db(), { parcelId: p.id, to: 'SENT', destinationWarehouseId: w.pvz.id }, now);
        assert.equal(x.currentWarehouseId, null);
        x = await changeParcelStatus(
          db(),
          { parcelId: p.id, to: 'RECEIVED', warehouseId: w.pvz.id, userId: w.storeKeeper.id },
          now,
        );
        assert.deepEqual(
          [x.atPickupPoint, x.atFinalPoint],
          [1, 1],
          'received at a pickup point: counts as ARRIVED, at its final point',
        );
        x = await changeParcelStatus(db(), { parcelId: p.id, to: 'TRANSFERRED' }, now);
        x = await changeParcelStatus(db(), { parcelId: p.id, to: 'COMPLETED' }, now);
        const history = await parcelHistory(db(), p.id);
        assert.deepEqual(
          history.map((h) => h.status),
          ['AWAITING', 'RECEIVED', 'READYTOSHIP', 'SENT', 'RECEIVED', 'TRANSFERRED', 'COMPLETED'],
        );
        assert.equal(history[3].destinationWarehouseId, w.pvz.id);
        assert.equal(history[1].userId, w.user.id);
        const row = await db().selectFrom('parcel').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow();
        assert.equal(row.currentStatusId, history.at(-1)!.id);
      });

      it('refuses moves outside the transitions and staff of companies that do not handle the parcel', async () => {
        const p = await createParcel(db(), { companyId: w.logist.id, weight: 1, currency: 'KGS' }, now);
        await rejects(
          changeParcelStatus(db(), { parcelId: p.id, to: 'SENT' }, now),
          'INVALID_TRANSITION',
          /parcel in AWAITING cannot become SENT/,
        );
        await rejects(
          changeParcelStatus(
            db(),
            { parcelId: p.id, to: 'RECEIVED', warehouseId: w.store.id, userId: w.otherAdmin.id },
            now,
          ),
          'NOT_ACCEPTABLE',
          /does not handle/,
        );
        await rejects(
          changeParcelStatus(db(), { parcelId: p.id, to: 'RECEIVED' }, now),
          'NOT_ACCEPTABLE',
          /needs the warehouse/,
        );
        assert.equal((await parcelHistory(db(), p.id)).length, 1, 'nothing written by a refused change');
        await rejects(changeParcelStatus(db(), { parcelId: 99_999, to: 'RECEIVED' }, now), 'PARCEL_NOT_FOUND');
      });

      it('two staff receiving the same parcel at once: exactly one change applies', async () => {
        const p = await createParcel(db(), { companyId: w.logist.id, weight: 1, currency: 'KGS' }, now);
        const results = await Promise.allSettled([
          changeParcelStatus(db(), { parcelId: p.id, to: 'RECEIVED', warehouseId: w.store.id }, now),
          changeParcelStatus(db(), { parcelId: p.id, to: 'RECEIVED', warehouseId: w.depot.id }, now),
        ]);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        assert.equal((await parcelHistory(db(), p.id)).length, 2);
      });

      it('redirect: refused in transit, points the parcel elsewhere and marks it until arrival', async () => {
        const p = await createParcel(
          db(),
          {
            companyId: w.logist.id,
            weight: 1,
            currency: 'KGS',
            deliveryMethod: 'WAREHOUSE',
            deliveryWarehouseId: w.depot.id,
          },
          now,
        );
        await changeParcelStatus(db(), { parcelId: p.id, to: 'RECEIVED', warehouseId: w.store.id }, now);
        await changeParcelStatus(db(), { parcelId: p.id, to: 'READYTOSHIP' }, now);
        await rejects(
          redirectParcel(db(), p.id, { warehouseId: w.pvz.id }, now),
          'NOT_ACCEPTABLE',
          /parcel in READYTOSHIP cannot be redirected/,
        );
        await changeParcelStatus(db(), { parcelId: p.id, to: 'RECEIVED', warehouseId: w.store.id }, now);
        await rejects(
          redirectParcel(db(), p.id, { warehouseId: w.depot.id }, now),
          'COMPANY_NOT_FOUND',
          /pickup point/,
        );
        await rejects(redirectParcel(db(), p.id, { postomatId: 'nosuchlocker' }, now), 'POSTOMAT_NOT_FOUND');
        const r = await redirectParcel(db(), p.id, { warehouseId: w.pvz.id }, now);
        assert.deepEqual(
          [r.deliveryMethod, r.deliveryWarehouseId, r.redirectedAt, r.status],
          ['PICKUP', w.pvz.id, now.toISOString(), 'RECEIVED'],
        );
        const there = await changeParcelStatus(db(), { parcelId: p.id, to: 'ARRIVED', warehouseId: w.pvz.id }, now);
        assert.deepEqual([there.redirectedAt, there.atFinalPoint], [null, 1]);
      });

      it("a client's new name and phone change its own search text, not its parcels'", async () => {
        const c = await createClient(db(), { companyId: w.logist.id, name: 'Old Name', phone: '+996700000000' }, now);
        assert.equal(c.searchText, 'old name\n+996700000000');
        const p = await createParcel(
          db(),
          { companyId: w.logist.id, weight: 1, currency: 'KGS', clientId: c.id, cargoTypeId: w.cargoType.id },
          now,
        );
        const before = await db().selectFrom('parcel').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow();
        assert.ok(before.searchText.endsWith('\nsrl'), 'the code name of its cargo type');
        const renamed = await updateClient(db(), c.id, { name: 'Новое Имя' }, now);
        assert.equal(renamed.searchText, 'новое имя\n+996700000000');
        assert.equal((await updateClient(db(), c.id, { phone: null }, now)).searchText, 'новое имя');
        assert.deepEqual(
          await db().selectFrom('parcel').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow(),
          before,
          'the parcel is not rewritten',
        );
      });

      it('a warehouse that becomes a pickup point re-files the parcels inside', async () => {
        const p = await createParcel(
          db(),
          { companyId: w.logist.id, weight: 1, currency: 'KGS', deliveryMethod: 'PICKUP' },
          now,
        );
        await changeParcelStatus(db(), { parcelId: p.id, to: 'RECEIVED', warehouseId: w.depot.id }, now);
        await updateWarehouse(db(), w.depot.id, { isPickupPoint: true }, now);
        let row = await db()
          .selectFrom('parcel')
          .select(['atPickupPoint', 'atFinalPoint'])
          .where('id', '=', p.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, { atPickupPoint: 1, atFinalPoint: 1 });
        await updateWarehouse(db(), w.depot.id, { isPickupPoint: false }, now);
        row = await db()
          .selectFrom('parcel')
          .select(['atPickupPoint', 'atFinalPoint'])
          .where('id', '=', p.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, { atPickupPoint: 0, atFinalPoint: 0 });
      });
    });

    describe('cargo and payment orders', () => {
      it('cargo starts RECEIVED at a warehouse and follows the cargo transitions', async () => {
        const c = await createCargo(
          db(),
          {
            companyId: w.logist.id,
            warehouseId: w.store.id,
            weight: 800,
            currency: 'USD',
            tractorNumber: '01KG777AAA',
            clientId: w.aibek.id,
            cargoTypeId: w.cargoType.id,
            deliveryWarehouseId: w.depot.id,
          },
          now,
        );
        assert.deepEqual(
          [c.status, c.cargoKind, c.currentWarehouseId, c.atFinalPoint],
          ['RECEIVED', 'CARGO', w.store.id, 0],
        );
        assert.ok(c.searchText.includes('silk road logistics') && c.searchText.includes('01kg777aaa'));
        await rejects(changeCargoStatus(db(), { cargoId: c.id, to: 'SENT' }, now), 'INVALID_TRANSITION');
        await changeCargoStatus(db(), { cargoId: c.id, to: 'READYTOSHIP' }, now);
        await changeCargoStatus(db(), { cargoId: c.id, to: 'SENT' }, now);
        const there = await changeCargoStatus(db(), { cargoId: c.id, to: 'RECEIVED', warehouseId: w.depot.id }, now);
        assert.equal(there.atFinalPoint, 1);
        await updatePlatformCompany(db(), w.logist.id, { title: 'Silk Road Group' }, now);
        const row = await db()
          .selectFrom('cargo')
          .select('searchText')
          .where('id', '=', c.id)
          .executeTakeFirstOrThrow();
        assert.ok(row.searchText.includes('silk road group'), 'cargo search follows the company title');
        await updatePlatformCompany(db(), w.logist.id, { title: 'Silk Road Logistics' }, now);
      });

      it('payment orders set and then settle the paid state of what they cover', async () => {
        const p = await createParcel(
          db(),
          { companyId: w.logist.id, weight: 1, currency: 'KGS', clientId: w.aibek.id },
          now,
        );
        const c = await createCargo(
          db(),
          { companyId: w.logist.id, warehouseId: w.store.id, weight: 1, currency: 'KGS', clientId: w.aibek.id },
          now,
        );
        const o = await createPaymentOrder(
          db(),
          {
            companyId: w.logist.id,
            clientId: w.aibek.id,
            amount: 150_00,
            currency: 'kgs',
            parcelIds: [p.id],
            cargoIds: [c.id],
          },
          now,
        );
        const paidOf = async () => [
          (await db().selectFrom('parcel').select('isPaid').where('id', '=', p.id).executeTakeFirstOrThrow()).isPaid,
          (await db().selectFrom('cargo').select('isPaid').where('id', '=', c.id).executeTakeFirstOrThrow()).isPaid,
        ];
        assert.deepEqual(await paidOf(), [0, 0]);
        await rejects(
          createPaymentOrder(db(), { companyId: w.logist.id, amount: 1, currency: 'KGS', parcelIds: [p.id] }, now),
          'NOT_ACCEPTABLE',
          /already has payment order/,
        );
        const paid = await markPaymentOrderPaid(db(), o.id, now);
        assert.deepEqual([paid.isPaid, paid.paidAt], [1, now.toISOString()]);
        assert.deepEqual(await paidOf(), [1, 1]);
      });
    });

    it('cargo types list with their delivery types, filtered by kind and activity', async () => {
      const all = await listCargoTypes(db());
      assert.deepEqual(all.find((t) => t.id === w.cargoType.id)!.deliveryTypes, [
        { id: w.air.id, title: 'Air' },
        { id: w.road.id, title: 'Road' },
      ]);
      assert.deepEqual(
        (await listCargoTypes(db(), { kinds: ['CAR', 'PACKAGE'], activeOnly: true })).map((t) => t.type),
        ['CAR', 'PACKAGE'],
      );
    });
  });
}
