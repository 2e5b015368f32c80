import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { verifyPassword } from '../../cloud/domain/secrets.ts';
import { useOperator } from './harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] platform commands`, () => {
    const op = useOperator(dialect);
    const ids: Record<string, number> = {};

    it('builds the reference data: delivery and cargo types, a country and its city', async () => {
      ids.air = (await op.json('delivery-type', 'create', '--title', 'Air')).id;
      const cargo = await op.json(
        'cargo-type',
        'create',
        '--title',
        'Cargo',
        '--type',
        'cargo',
        '--title-ru',
        'Груз',
        '--is-parent',
        '--delivery-types',
        String(ids.air),
      );
      assert.deepEqual(
        [cargo.type, cargo.isParent, cargo.titleRU, cargo.deliveryTypes],
        ['CARGO', true, 'Груз', [{ id: ids.air, title: 'Air' }]],
      );
      ids.cargo = cargo.id;
      ids.car = (
        await op.json('cargo-type', 'create', '--title', 'Car', '--type', 'CAR', '--parent', String(cargo.id))
      ).id;
      ids.country = (await op.json('platform-country', 'create', '--title', 'Kyrgyzstan')).id;
      ids.city = (
        await op.json(
          'platform-city',
          'create',
          '--country',
          String(ids.country),
          '--title',
          'Bishkek',
          '--lat',
          '42.87',
          '--lng',
          '74.59',
        )
      ).id;
      const countries = await op.json('platform-country', 'list');
      assert.deepEqual(
        countries[0].cities.map((c: any) => c.title),
        ['Bishkek'],
      );
      assert.match(await op.fails(1, 'delivery-type', 'create', '--title', 'Air'), /exists/);
      assert.match(
        await op.fails(2, 'cargo-type', 'create', '--title', 'X', '--type', 'BOAT'),
        /--type must be one of CARGO, CAR, PACKAGE, FREIGHT/,
      );
      assert.match(
        await op.fails(1, 'cargo-type', 'create', '--title', 'X', '--type', 'CAR', '--parent', String(ids.car)),
        /not a parent type/,
      );
    });

    it('creates companies of each type with code names, flags, partners and locker access', async () => {
      const logist = await op.json(
        'platform-company',
        'create',
        '--title',
        'Silk Road',
        '--type',
        'LOGIST',
        '--intercity',
        '--city',
        String(ids.city),
        '--codes',
        `srl:${ids.cargo},SRLA:${ids.car}`,
        '--delivery-types',
        String(ids.air),
        '--locker-company',
        'new',
        '--locker-access',
        'true',
      );
      assert.deepEqual(
        [logist.id, logist.type, logist.isIntercity, logist.isInternational, logist.countryId, logist.lockerAccess],
        [1, 'LOGIST', true, false, ids.country, true],
      );
      assert.deepEqual(
        logist.codes.map((c: any) => c.title),
        ['SRL', 'SRLA'],
      );
      assert.match(logist.lockerCompanyId, /^[a-z][a-z0-9]{23}$/);
      ids.logist = logist.id;
      const wh = await op.json(
        'platform-company',
        'create',
        '--title',
        'Storage',
        '--type',
        'warehouse',
        '--partners',
        String(logist.id),
      );
      assert.deepEqual(wh.partnerIds, [logist.id]);
      ids.warehouseCo = wh.id;
      ids.market = (await op.json('platform-company', 'create', '--title', 'Bazaar', '--type', 'MARKETPLACE')).id;
      ids.courier = (await op.json('platform-company', 'create', '--title', 'Door', '--type', 'COURIER')).id;
      assert.deepEqual(
        (await op.json('platform-company', 'list', '--type', 'LOGIST')).map((c: any) => c.id),
        [logist.id],
      );
      assert.match(
        await op.fails(
          1,
          'platform-company',
          'code-add',
          '--company',
          String(ids.market),
          '--code-name',
          'SRL',
          '--cargo-type',
          String(ids.cargo),
        ),
        /SRL is taken/,
      );
      assert.match(
        await op.fails(
          1,
          'platform-company',
          'partner-add',
          '--id',
          String(ids.market),
          '--partner',
          String(ids.warehouseCo),
        ),
        /partners with LOGIST or COURIER/,
      );
      const withPartner = await op.json(
        'platform-company',
        'partner-add',
        '--id',
        String(ids.market),
        '--partner',
        String(ids.courier),
      );
      assert.deepEqual(withPartner.partnerIds, [ids.courier]);
    });

    it('switches locker access: needs a link, "new" creates one, "none" unlinks', async () => {
      assert.match(
        await op.fails(1, 'platform-company', 'locker-access', '--id', String(ids.market), '--enabled', 'true'),
        /linked locker company/,
      );
      const on = await op.json(
        'platform-company',
        'locker-access',
        '--id',
        String(ids.market),
        '--locker-company',
        'new',
        '--enabled',
        'true',
      );
      assert.equal(on.lockerAccess, true);
      const off = await op.json('platform-company', 'locker-access', '--id', String(ids.market), '--enabled', 'false');
      assert.deepEqual([off.lockerAccess, off.lockerCompanyId], [false, on.lockerCompanyId]);
      const gone = await op.json(
        'platform-company',
        'locker-access',
        '--id',
        String(ids.market),
        '--locker-company',
        'none',
      );
      assert.deepEqual([gone.lockerAccess, gone.lockerCompanyId], [false, null]);
      assert.match(
        await op.fails(
          1,
          'platform-company',
          'locker-access',
          '--id',
          String(ids.market),
          '--locker-company',
          'nosuch',
        ),
        /no locker company nosuch/,
      );
      assert.match(
        await op.fails(1, 'platform-company', 'locker-access', '--id', String(ids.market)),
        /give --locker-company and\/or --enabled/,
      );
    });

    it('creates users with hashed passwords (generated and printed once when not given) and admin roles', async () => {
      const admin = await op.json(
        'platform-user',
        'create',
        '--email',
        'Boss@Silk.example',
        '--company',
        String(ids.logist),
        '--role',
        'admin',
      );
      assert.equal(admin.email, 'boss@silk.example');
      assert.equal(admin.role, 'ADMIN');
      assert.equal(admin.password.length, 16);
      const row = await op
        .storage()
        .db.selectFrom('platform_user')
        .selectAll()
        .where('id', '=', admin.id)
        .executeTakeFirstOrThrow();
      assert.ok(verifyPassword(admin.password, row.passwordHash));
      assert.ok(!JSON.stringify(await op.json('platform-user', 'list')).includes('scrypt'), 'hashes never printed');
      const clerk = await op.json(
        'platform-user',
        'create',
        '--email',
        'clerk@silk.example',
        '--company',
        String(ids.logist),
        '--password',
        'long enough pw',
      );
      assert.equal(clerk.password, undefined, 'a password the operator gave is not printed back');
      ids.clerk = clerk.id;
      assert.match(
        await op.fails(
          1,
          'platform-user',
          'create',
          '--email',
          'x@silk.example',
          '--company',
          String(ids.logist),
          '--password',
          'short',
        ),
        /at least 8/,
      );
      assert.match(
        await op.fails(2, 'platform-user', 'create', '--email', 'not-an-email', '--company', '1'),
        /--email must be an email address/,
      );
      const demoted = await op.json('platform-user', 'update', '--id', String(admin.id), '--role', 'USER');
      assert.equal(demoted.role, 'USER');
    });

    it('creates, lists (prefix only) and deletes platform API keys', async () => {
      const k = await op.json('platform-key', 'create', '--company', String(ids.logist), '--title', 'shop');
      assert.match(k.key, /^plp_/);
      const list = await op.json('platform-key', 'list', '--company', String(ids.logist));
      assert.deepEqual(
        list.map((x: any) => [x.id, x.keyPrefix]),
        [[k.id, k.key.slice(0, 8)]],
      );
      assert.ok(!(await op.run('platform-key', 'list', '--company', String(ids.logist))).stdout.includes(k.key));
      await op.json('platform-key', 'delete', '--id', String(k.id));
      assert.match(await op.fails(1, 'platform-key', 'delete', '--id', String(k.id)), /no platform API key/);
    });

    it('creates warehouses and pickup points, clients with codes, suppliers', async () => {
      const pvz = await op.json(
        'warehouse',
        'create',
        '--company',
        String(ids.market),
        '--title',
        'Pickup A',
        '--pickup-point',
        '--lat',
        '42.9',
        '--lng',
        '74.6',
        '--schedules',
        '[{"day":"MON","open":"09:00"}]',
        '--city',
        String(ids.city),
      );
      assert.deepEqual(
        [pvz.isPickupPoint, pvz.schedules, pvz.countryId],
        [true, [{ day: 'MON', open: '09:00' }], ids.country],
      );
      ids.pvz = pvz.id;
      ids.depot = (await op.json('warehouse', 'create', '--company', String(ids.logist), '--title', 'Depot')).id;
      assert.match(
        await op.fails(1, 'warehouse', 'create', '--company', String(ids.logist), '--title', 'Half', '--lat', '42'),
        /lat and lng go together/,
      );
      assert.match(
        await op.fails(2, 'warehouse', 'create', '--company', '1', '--title', 'Bad', '--schedules', '{"day":1}'),
        /--schedules must be a JSON array/,
      );
      assert.deepEqual(
        (await op.json('warehouse', 'list', '--pickup-points', 'true')).map((w: any) => w.id),
        [ids.pvz],
      );
      const a = await op.json(
        'client',
        'create',
        '--company',
        String(ids.logist),
        '--name',
        'Aibek',
        '--phone',
        '+996555000001',
        '--delivery-company',
        String(ids.warehouseCo),
      );
      const b = await op.json('client', 'create', '--company', String(ids.logist), '--name', 'Bermet', '--code', '500');
      const c = await op.json('client', 'create', '--company', String(ids.logist), '--name', 'Chyngyz');
      assert.deepEqual([a.code, b.code, c.code], [1, 500, 501]);
      ids.client = a.id;
      assert.match(
        await op.fails(1, 'client', 'create', '--company', String(ids.logist), '--code', '500'),
        /code 500 is taken/,
      );
      assert.match(
        await op.fails(
          1,
          'client',
          'create',
          '--company',
          String(ids.logist),
          '--delivery-company',
          String(ids.market),
        ),
        /not a WAREHOUSE or LOGIST company/,
      );
      assert.match(
        await op.fails(2, 'client', 'create', '--company', '1', '--phone', 'abc'),
        /--phone must be a phone number/,
      );
      assert.deepEqual(
        (await op.json('client', 'list', '--company', String(ids.logist))).map((x: any) => x.code),
        [1, 500, 501],
      );
      const s = await op.json(
        'supplier',
        'create',
        '--company',
        String(ids.logist),
        '--phone',
        '+8613800000000',
        '--name',
        'Yiwu',
      );
      ids.supplier = s.id;
      assert.match(
        await op.fails(1, 'supplier', 'create', '--company', String(ids.logist), '--phone', '+8613800000000'),
        /has a supplier with phone/,
      );
    });

    it('registers a parcel and moves it as warehouse staff, enforcing the transitions', async () => {
      const p = await op.json(
        'parcel',
        'create',
        '--company',
        String(ids.logist),
        '--weight',
        '1.5',
        '--currency',
        'kgs',
        '--price',
        '120.50',
        '--client',
        String(ids.client),
        '--supplier',
        String(ids.supplier),
        '--delivery-method',
        'pickup',
        '--delivery-warehouse',
        String(ids.pvz),
        '--track-code',
        'TRK-1',
        '--user',
        String(ids.clerk),
      );
      assert.deepEqual(
        [p.status, p.price, p.currency, p.clientCode, p.statuses.length],
        ['AWAITING', 120.5, 'KGS', 1, 1],
      );
      assert.match(
        await op.fails(1, 'parcel', 'status', '--id', String(p.id), '--to', 'SENT'),
        /parcel in AWAITING cannot become SENT \(it can become RECEIVED, ARRIVED, RECALL, LOST\)/,
      );
      assert.match(
        await op.fails(1, 'parcel', 'status', '--id', String(p.id), '--to', 'RECEIVED'),
        /needs the warehouse/,
      );
      assert.match(
        await op.fails(2, 'parcel', 'status', '--id', String(p.id), '--to', 'FLYING'),
        /--to must be one of AWAITING, RECEIVED/,
      );
      await op.json(
        'parcel',
        'status',
        '--id',
        String(p.id),
        '--to',
        'RECEIVED',
        '--warehouse',
        String(ids.depot),
        '--user',
        String(ids.clerk),
      );
      await op.json('parcel', 'status', '--id', String(p.id), '--to', 'READYTOSHIP');
      await op.json('parcel', 'status', '--id', String(p.id), '--to', 'SENT', '--destination', String(ids.pvz));
      const there = await op.json(
        'parcel',
        'status',
        '--id',
        String(p.id),
        '--to',
        'RECEIVED',
        '--warehouse',
        String(ids.pvz),
      );
      assert.deepEqual(
        [there.atPickupPoint, there.atFinalPoint, there.statuses.map((s: any) => s.status)],
        [true, true, ['AWAITING', 'RECEIVED', 'READYTOSHIP', 'SENT', 'RECEIVED']],
      );
      const text = (await op.run('parcel', 'show', '--track-code', 'TRK-1')).stdout;
      assert.match(text, /next: +READYTOSHIP, ARRIVED, COURIER_RECEIVED, TRANSFERRED, REDIRECT_TO_PVZ, RECALL, LOST/);
      assert.match(
        await op.fails(
          1,
          'parcel',
          'create',
          '--company',
          String(ids.logist),
          '--weight',
          '1',
          '--currency',
          'KGS',
          '--track-code',
          'TRK-1',
        ),
        /parcel track code TRK-1 exists/,
      );
      const order = await op.json(
        'payment-order',
        'create',
        '--company',
        String(ids.logist),
        '--amount',
        '120.50',
        '--currency',
        'KGS',
        '--parcels',
        String(p.id),
      );
      assert.deepEqual([order.amount, order.isPaid], [120.5, false]);
      assert.equal((await op.json('parcel', 'show', '--id', String(p.id))).isPaid, false);
      await op.json('payment-order', 'pay', '--id', String(order.id));
      assert.equal((await op.json('parcel', 'show', '--id', String(p.id))).isPaid, true);
    });

    it('registers cargo and moves it, enforcing the cargo transitions', async () => {
      const c = await op.json(
        'cargo',
        'create',
        '--company',
        String(ids.logist),
        '--warehouse',
        String(ids.depot),
        '--weight',
        '900',
        '--currency',
        'USD',
        '--tractor-number',
        '01KG123ABC',
        '--cargo-type',
        String(ids.car),
      );
      assert.deepEqual([c.status, c.cargoKind, c.tractorNumber], ['RECEIVED', 'CAR', '01KG123ABC']);
      assert.match(
        await op.fails(1, 'cargo', 'status', '--id', String(c.id), '--to', 'SENT'),
        /cargo in RECEIVED cannot become SENT/,
      );
      await op.json('cargo', 'status', '--id', String(c.id), '--to', 'READYTOSHIP');
      const sent = await op.json('cargo', 'status', '--id', String(c.id), '--to', 'SENT');
      assert.equal(sent.currentWarehouseId, null);
      assert.match(await op.fails(1, 'cargo', 'show', '--id', '9999'), /no cargo 9999/);
    });

    it('names missing ids and bad id lists', async () => {
      assert.match(await op.fails(1, 'platform-company', 'show', '--id', '999'), /no platform company 999/);
      assert.match(await op.fails(2, 'platform-company', 'show', '--id', '0'), /--id must be >= 1/);
      assert.match(
        await op.fails(2, 'platform-company', 'types', '--id', '1', '--cargo-types', '1,x'),
        /"x" is not an id/,
      );
      assert.match(
        await op.fails(2, 'platform-company', 'create', '--title', 'T', '--type', 'LOGIST', '--codes', 'AB1'),
        /"AB1" is not codeName:cargoTypeId/,
      );
    });
  });
}
