import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { startReceiver, eventually, type Receiver } from '../helpers/receiver.ts';
import { finishOrder, placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { setLockerAccess, updatePlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { createWebhook } from '../../cloud/services/platform/webhooks.ts';

const LOCKER = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`platform webhooks of locker orders (${dialect.name})`, () => {
    let cloud: TestCloud;
    let lw: LockerWorld;
    let w: PlatformWorld;
    let hooks: Receiver;
    before(async () => {
      hooks = await startReceiver();
      cloud = await startTestCloud(dialect, { env: { EVENT_TIMEOUT_MS: '1000' } });
      lw = await seedLockerWorld(cloud.storage.db);
      w = await seedPlatformWorld(cloud.storage.db);
      // The logistics company's locker orders are company A's; the administrator sets up its webhooks over the API.
      await setLockerAccess(
        cloud.storage.db,
        w.logist.id,
        { lockerCompanyId: lw.companyA.id, enabled: true },
        new Date(),
      );
      const admin = (
        await cloud.request('POST', '/api/v1/auth/login', {
          body: { email: 'admin@silkroad.example', password: PASSWORD },
        })
      ).body.accessToken;
      const make = (body: unknown) =>
        cloud.request('POST', '/api/v1/logistic-company/webhook/create', { token: admin, body });
      assert.equal(
        (
          await make({
            type: 'PARCEL',
            subtype: 'DELIVERED_TO_POSTOMAT',
            url: `${hooks.url}/placed`,
            apiKey: 'hook-secret',
            payloadTemplate: '{"status":{{status}},"postomatOrderId":"{{postomatOrderId}}","source":"lockers"}',
          })
        ).status,
        200,
      );
      assert.equal(
        (await make({ type: 'PARCEL', subtype: 'TRANSFERRED_TO_CLIENT', url: `${hooks.url}/taken` })).status,
        200,
      );
      assert.equal(
        (await make({ type: 'CARGO', subtype: 'DELIVERED_TO_POSTOMAT', url: `${hooks.url}/cargo` })).status,
        200,
      );
      // Osh Express is not linked to a locker company: it hears only of orders delivering its parcels.
      await createWebhook(
        cloud.storage.db,
        w.otherLogist.id,
        { type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT', url: `${hooks.url}/osh` },
        new Date(),
      );
      // The marketplace hears of orders delivering parcels it created.
      await createWebhook(
        cloud.storage.db,
        w.market.id,
        { type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT', url: `${hooks.url}/market` },
        new Date(),
      );
    });
    after(async () => {
      await cloud.stop();
      await hooks.close();
    });

    const create = async (key: string) =>
      (
        await cloud.request('POST', `${LOCKER}/order/create`, {
          token: key,
          body: { toUserPhone: '+996555123456', postomatId: lw.near.id, sendMessage: false },
        })
      ).body;
    const received = (orderId: string) => hooks.received.filter((r) => r.body.includes(orderId));
    const settled = (orderId: string, n: number) =>
      eventually(async () => {
        const rows = await cloud.storage.db
          .selectFrom('outbox_event')
          .selectAll()
          .where('orderId', '=', orderId)
          .where('kind', '=', 'WEBHOOK')
          .execute();
        assert.equal(rows.length, n);
        assert.ok(
          rows.every((r) => r.state === 'SENT'),
          JSON.stringify(rows.map((r) => r.state)),
        );
        return rows;
      });

    it('placement sends DELIVERED_TO_POSTOMAT from the template, with x-api-key; collection sends TRANSFERRED_TO_CLIENT', async () => {
      const order = await create(lw.companyA.key);
      await placeOrder(cloud.storage, order.id, lw.near.cells[0].id, cloud.clock.now());
      await settled(order.id, 1);
      const [placed] = received(order.id);
      assert.equal(placed.path, '/placed');
      assert.equal(
        placed.body,
        `{"status":0,"postomatOrderId":"${order.id}"}`,
        "exactly the two fields, in the template's order",
      );
      assert.equal(placed.headers['x-api-key'], 'hook-secret');
      assert.equal(placed.headers['content-type'], 'application/json');

      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      await settled(order.id, 2);
      const taken = received(order.id).find((r) => r.path === '/taken')!;
      assert.deepEqual(JSON.parse(taken.body), { postomatOrderId: order.id, status: 1 });
      assert.equal(taken.headers['x-api-key'], undefined, 'no apiKey, no header');
      assert.ok(!hooks.received.some((r) => r.path === '/cargo'), 'CARGO webhooks are not locker events');
    });

    it('orders of an unlinked locker company reach nobody, unless a parcel names the order', async () => {
      const lonely = await create(lw.companyB.key);
      await placeOrder(cloud.storage, lonely.id, lw.near.cells[1].id, cloud.clock.now());
      const none = await cloud.storage.db
        .selectFrom('outbox_event')
        .selectAll()
        .where('orderId', '=', lonely.id)
        .where('kind', '=', 'WEBHOOK')
        .execute();
      assert.equal(none.length, 0, 'events are written with the placement: none there means none ever');

      const order = await create(lw.companyB.key);
      await createParcel(
        cloud.storage.db,
        {
          companyId: w.otherLogist.id,
          partnerCompanyId: w.market.id,
          weight: 1,
          currency: 'KGS',
          deliveryMethod: 'POSTOMAT',
          postomatId: lw.near.id,
          postomatOrderId: order.id,
        },
        new Date(),
      );
      await placeOrder(cloud.storage, order.id, lw.near.cells[2].id, cloud.clock.now());
      await settled(order.id, 2);
      assert.deepEqual(
        received(order.id)
          .map((r) => r.path)
          .sort(),
        ['/market', '/osh'],
      );
    });

    it('a switched-off company gets nothing', async () => {
      await updatePlatformCompany(cloud.storage.db, w.logist.id, { isActive: false }, new Date());
      const order = await create(lw.companyA.key);
      await placeOrder(cloud.storage, order.id, lw.mid.cells[0].id, cloud.clock.now());
      const rows = await cloud.storage.db
        .selectFrom('outbox_event')
        .selectAll()
        .where('orderId', '=', order.id)
        .where('kind', '=', 'WEBHOOK')
        .execute();
      assert.equal(rows.length, 0);
      await updatePlatformCompany(cloud.storage.db, w.logist.id, { isActive: true }, new Date());
    });
  });

  describe(`webhooks switched off by configuration (${dialect.name})`, () => {
    let cloud: TestCloud;
    let lw: LockerWorld;
    let hooks: Receiver;
    before(async () => {
      hooks = await startReceiver();
      // The spec's test environment: webhook sending disabled, everything else as usual.
      cloud = await startTestCloud(dialect, { env: { EVENT_TIMEOUT_MS: '1000', WEBHOOKS_ENABLED: 'false' } });
      lw = await seedLockerWorld(cloud.storage.db);
      const w = await seedPlatformWorld(cloud.storage.db);
      await setLockerAccess(
        cloud.storage.db,
        w.logist.id,
        { lockerCompanyId: lw.companyA.id, enabled: true },
        new Date(),
      );
      await createWebhook(
        cloud.storage.db,
        w.logist.id,
        { type: 'PARCEL', subtype: 'TRANSFERRED_TO_CLIENT', url: `${hooks.url}/taken` },
        new Date(),
      );
      await cloud.storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${hooks.url}/notify` })
        .where('id', '=', lw.companyA.id)
        .execute();
    });
    after(async () => {
      await cloud.stop();
      await hooks.close();
    });

    it('records the webhook as SKIPPED and sends nothing, while the company notification still goes out', async () => {
      const order = (
        await cloud.request('POST', `${LOCKER}/order/create`, {
          token: lw.companyA.key,
          body: { toUserPhone: '+996555123456', postomatId: lw.near.id, sendMessage: false },
        })
      ).body;
      await placeOrder(cloud.storage, order.id, lw.near.cells[0].id, cloud.clock.now());
      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      const rows = await eventually(async () => {
        const r = await cloud.storage.db
          .selectFrom('outbox_event')
          .selectAll()
          .where('orderId', '=', order.id)
          .execute();
        assert.equal(r.length, 2);
        assert.ok(
          r.every((x) => x.state !== 'PENDING' && x.state !== 'SENDING'),
          JSON.stringify(r.map((x) => x.state)),
        );
        return r;
      });
      const byKind = Object.fromEntries(rows.map((r) => [r.kind, r]));
      assert.equal(byKind.WEBHOOK.state, 'SKIPPED');
      assert.equal(byKind.COMPANY_NOTIFICATION.state, 'SENT');
      await eventually(async () => assert.equal(hooks.received.length, 1));
      assert.deepEqual(
        hooks.received.map((r) => r.path),
        ['/notify'],
      );
    });
  });
}
