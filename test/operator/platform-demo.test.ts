import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { verifyPassword, hashApiKey } from '../../cloud/domain/secrets.ts';
import { PARCEL_STATUSES, CARGO_STATUSES, CARGO_KINDS } from '../../cloud/domain/platform/enums.ts';
import { useOperator } from './harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] seed-demo: the platform part`, () => {
    const op = useOperator(dialect);
    let p: any;
    before(async () => {
      p = (await op.json('seed-demo')).platform;
    });
    const db = () => op.storage().db;
    const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }) =>
      Number((await q.executeTakeFirstOrThrow()).n);
    const parcels = () =>
      db()
        .selectFrom('parcel')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('clientCompanyId', '=', 1);

    it('has the shape the issue asks for, logist being company 1 and pickup points 1 and 2', async () => {
      assert.equal(p.logist.companyId, 1);
      for (const part of ['logist', 'otherLogist', 'warehouse', 'market', 'noLockerAccess']) {
        assert.equal(typeof p[part].companyId, 'number', part);
        assert.match(p[part].apiKey, /^plp_/, part);
      }
      for (const login of [p.logist.admin, p.logist.user, p.otherLogist.admin])
        assert.deepEqual(Object.keys(login).sort(), ['email', 'password']);
      assert.deepEqual(p.pickupPointIds, [1, 2]);
      assert.ok(p.clients.length >= 6);
      for (const c of p.clients)
        assert.deepEqual(Object.keys(c).sort(), ['code', 'codeName', 'companyId', 'id', 'phone']);
      assert.deepEqual(
        p.clients
          .filter((c: any) => c.companyId === 1)
          .map((c: any) => `${c.codeName}-${c.code}`)
          .slice(0, 2),
        ['SRL-1', 'SRL-2'],
      );
    });

    it('credentials work: the keys name their companies, the logins their users, and only the admin is an admin', async () => {
      for (const part of ['logist', 'otherLogist', 'warehouse', 'market', 'noLockerAccess']) {
        const k = await db()
          .selectFrom('platform_api_key')
          .select('companyId')
          .where('keyHash', '=', hashApiKey(p[part].apiKey))
          .executeTakeFirstOrThrow();
        assert.equal(k.companyId, p[part].companyId, part);
      }
      const user = async (email: string) =>
        db().selectFrom('platform_user').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
      const admin = await user(p.logist.admin.email);
      assert.ok(verifyPassword(p.logist.admin.password, admin.passwordHash));
      assert.deepEqual([admin.role, admin.companyId], ['ADMIN', 1]);
      const clerk = await user(p.logist.user.email);
      assert.deepEqual([clerk.role, clerk.companyId], ['USER', 1]);
      assert.equal((await user(p.otherLogist.admin.email)).role, 'ADMIN');
    });

    it('the marketplace has locker access through a linked locker company; noLockerAccess has none', async () => {
      const company = (id: number) =>
        db().selectFrom('platform_company').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const market = await company(p.market.companyId);
      assert.deepEqual(
        [market.type, market.lockerAccess, market.lockerCompanyId],
        ['MARKETPLACE', 1, p.market.lockerCompanyId],
      );
      assert.equal((await company(p.noLockerAccess.companyId)).lockerAccess, 0);
      assert.equal((await company(p.warehouse.companyId)).type, 'WAREHOUSE');
    });

    it("the logistics company's parcels cover every status, paid, unpaid and without an order", async () => {
      for (const status of PARCEL_STATUSES)
        assert.ok((await count(parcels().where('status', '=', status))) > 0, status);
      for (const isPaid of [0, 1])
        assert.ok((await count(parcels().where('isPaid', '=', isPaid))) > 0, `isPaid ${isPaid}`);
      assert.ok((await count(parcels().where('isPaid', 'is', null))) > 0);
      assert.ok((await count(parcels().where('supplierId', '=', p.supplier.id))) > 0, 'supplier parcels');
      assert.ok((await count(parcels().where('partnerCompanyId', '=', p.market.companyId))) > 0, 'marketplace parcels');
    });

    it('the status filter and each special set select something that tells it apart', async () => {
      assert.ok(
        (await count(parcels().where('status', '=', 'RECEIVED').where('atPickupPoint', '=', 0))) > 0,
        'RECEIVED at a warehouse',
      );
      assert.ok(
        (await count(parcels().where('status', '=', 'RECEIVED').where('atPickupPoint', '=', 1))) > 0,
        'RECEIVED at a pickup point (listed as ARRIVED)',
      );
      const arrived = () => parcels().where('status', '=', 'ARRIVED');
      assert.ok(
        (await count(arrived().where('atFinalPoint', '=', 1).where('paymentOrderId', 'is not', null))) > 0,
        'strictArrived',
      );
      assert.ok(
        (await count(arrived().where('atFinalPoint', '=', 1).where('paymentOrderId', 'is', null))) > 0,
        'arrived at the final point without an order',
      );
      assert.ok((await count(arrived().where('atFinalPoint', '=', 0))) > 0, 'arrived on the way');
      const open = ['ARRIVED', 'READYTOSHIP', 'RECALL', 'RECEIVED', 'REDIRECT_TO_PVZ', 'SENT'] as const;
      assert.ok(
        (await count(parcels().where('status', 'in', open).where('atFinalPoint', '=', 0))) > 3,
        'arrivedAtFinal=false',
      );
      assert.ok(
        (await count(parcels().where('status', 'in', ['ARRIVED', 'RECEIVED']).where('atFinalPoint', '=', 1))) > 3,
        'arrivedAtFinal=true',
      );
      assert.ok(
        (await count(parcels().where('status', '=', 'ARRIVED').where('currentWarehouseId', 'is', null))) >= 2,
        'in the locker, at the door',
      );
      assert.ok((await count(parcels().where('redirectedAt', 'is not', null))) > 0, 'a redirect under way');
    });

    it('cargo covers every status and kind, at and away from its final point', async () => {
      const cargo = () =>
        db()
          .selectFrom('cargo')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('clientCompanyId', '=', 1);
      for (const status of CARGO_STATUSES) assert.ok((await count(cargo().where('status', '=', status))) > 0, status);
      for (const kind of CARGO_KINDS) assert.ok((await count(cargo().where('cargoKind', '=', kind))) > 0, kind);
      assert.ok((await count(cargo().where('status', '=', 'RECEIVED').where('atFinalPoint', '=', 1))) >= 2);
      assert.ok((await count(cargo().where('status', '=', 'RECEIVED').where('atFinalPoint', '=', 0))) >= 1);
      assert.ok(
        (await count(cargo().where('isPaid', '=', 1))) > 0 && (await count(cargo().where('isPaid', '=', 0))) > 0,
      );
    });

    it('warehouses: pickup points with and without coordinates, an inactive one, and plain warehouses', async () => {
      const w = await db().selectFrom('warehouse').selectAll().orderBy('id').execute();
      assert.deepEqual(
        w
          .filter((x) => x.isPickupPoint && x.isActive)
          .map((x) => x.id)
          .slice(0, 2),
        [1, 2],
      );
      assert.ok(w.some((x) => x.isPickupPoint && x.lat === null));
      assert.ok(w.some((x) => x.isPickupPoint && !x.isActive));
      assert.ok(w.filter((x) => !x.isPickupPoint).length >= 3);
    });

    it("another company's clients have parcels too, which the logistics company must never see", async () => {
      assert.ok(
        (await count(
          db()
            .selectFrom('parcel')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('clientCompanyId', '=', p.otherLogist.companyId),
        )) > 0,
      );
    });

    it('refuses to seed twice', async () => {
      assert.match(await op.fails(1, 'seed-demo'), /empty database only/);
    });
  });
}
