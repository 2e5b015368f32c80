import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { finishOrder, placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { startReceiver, eventually, type Receiver } from '../helpers/receiver.ts';
import { createLogger } from '../../cloud/logger.ts';

const BASE = '/api/v1/integration/company';

for (const dialect of DIALECTS) {
  describe(`outbound events through the dispatcher (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: LockerWorld;
    let company: Receiver;
    let sms: Receiver;
    const logLines: string[] = [];
    before(async () => {
      company = await startReceiver();
      sms = await startReceiver();
      cloud = await startTestCloud(dialect, {
        env: {
          EVENT_TIMEOUT_MS: '400',
          SMS_PROVIDER: 'http',
          SMS_GATEWAY_URL: `${sms.url}/send`,
          SMS_GATEWAY_TOKEN: 'gw-token',
          PUBLIC_BASE_URL: 'https://lockers.example.com',
        },
        logger: createLogger({ level: 'debug', write: (l) => logLines.push(l) }),
      });
      w = await seedLockerWorld(cloud.storage.db);
      await cloud.storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${company.url}/notify` })
        .where('id', '=', w.companyB.id)
        .execute();
    });
    after(async () => {
      await cloud.stop();
      await company.close();
      await sms.close();
    });

    const create = async (sendMessage: boolean) =>
      (
        await cloud.request('POST', `${BASE}/order/create`, {
          token: w.companyB.key,
          body: { toUserPhone: '+996555123456', postomatId: w.near.id, sendMessage },
        })
      ).body;
    const rows = (orderId: string) =>
      cloud.storage.db
        .selectFrom('outbox_event')
        .selectAll()
        .where('orderId', '=', orderId)
        .orderBy('createdAt')
        .execute();
    const settled = (orderId: string, n: number) =>
      eventually(async () => {
        const r = await rows(orderId);
        assert.equal(r.length, n);
        assert.ok(
          r.every((x) => !['PENDING', 'SENDING'].includes(x.state)),
          JSON.stringify(r.map((x) => x.state)),
        );
        return r;
      });

    it('creation sends nothing; placement sends the SMS with the pickup code and the map link', async () => {
      const order = await create(true);
      assert.equal((await rows(order.id)).length, 0);
      await placeOrder(cloud.storage, order.id, w.near.cells[1].id, cloud.clock.now());
      const [row] = await settled(order.id, 1);
      assert.equal(row.kind, 'SMS');
      assert.equal(row.state, 'SENT');
      const up = (await cloud.request('GET', `${BASE}/order/${order.id}/up-code`, { token: w.companyB.key })).body
        .password;
      const msg = sms.received.at(-1)!;
      assert.equal(msg.headers.authorization, 'Bearer gw-token');
      const { to, text } = JSON.parse(msg.body);
      assert.equal(to, '+996555123456');
      assert.ok(text.includes(`Pickup code: ${up}.`), text);
      assert.ok(text.includes('https://lockers.example.com/api/v1/public/postomat/map/ZETA01'), text);
      assert.ok(text.includes('cell 2'), text);
      assert.equal(company.received.length, 0, 'DELIVERED never notifies the company');
      assert.ok(!logLines.some((l) => l.includes(up) && l.includes('sms')), 'the code never reaches the log');
    });

    it("a return (issue 22): the sender's SMS carries the DOWN code at creation, and never the UP code", async () => {
      const res = await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyB.key,
        body: { toUserPhone: '+996555123457', postomatId: w.near.id, sendMessage: true, kind: 'RETURN' },
      });
      assert.equal(res.status, 200, res.text);
      const order = res.body;
      const [row] = await settled(order.id, 1);
      assert.deepEqual([row.kind, row.event, row.state], ['SMS', 'DROP_OFF_CODE', 'SENT']);
      const code = (type: string) =>
        cloud
          .request('GET', `${BASE}/order/${order.id}/${type}`, { token: w.companyB.key })
          .then((r) => r.body.password as string);
      const [down, up] = [await code('down-code'), await code('up-code')];
      const { to, text } = JSON.parse(sms.received.at(-1)!.body);
      assert.equal(to, '+996555123457');
      assert.equal(
        text,
        `Drop your return off at locker "${w.near.title}". Drop-off code: ${down}. Map: https://lockers.example.com/api/v1/public/postomat/map/ZETA01`,
      );
      // Dropped off: no pickup SMS to the sender.
      await placeOrder(cloud.storage, order.id, w.near.cells[2].id, cloud.clock.now());
      await settled(order.id, 1);
      // Whatever queued one anyway (a later change's SMS), the dispatcher will not send the UP code to a return's phone.
      const sent = sms.received.length;
      await cloud.storage.db
        .insertInto('outbox_event')
        .values({
          id: 'manualpickupsms0000000000',
          kind: 'SMS',
          event: 'PICKUP_CODE',
          orderId: order.id,
          target: '+996555123457',
          payload: JSON.stringify({ orderId: order.id }),
          secretHeader: null,
          state: 'PENDING',
          claimedBy: null,
          claimedUntil: null,
          httpStatus: null,
          error: null,
          latencyMs: null,
          createdAt: cloud.clock.now().toISOString(),
          sentAt: null,
        })
        .execute();
      cloud.dispatcher.wake();
      const rows2 = await settled(order.id, 2);
      const skipped = rows2.find((r) => r.event === 'PICKUP_CODE')!;
      assert.equal(skipped.state, 'SKIPPED');
      assert.match(skipped.error ?? '', /never gets the pickup code/);
      assert.equal(sms.received.length, sent);
      assert.ok(!sms.received.some((m) => JSON.parse(m.body).text.includes(`code: ${up}.`)), 'the UP code never left');
    });

    it('no SMS for an order created with sendMessage: false', async () => {
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.near.cells[2].id, cloud.clock.now());
      // Events are written in the placement's transaction: none there means none ever.
      assert.equal((await rows(order.id)).length, 0);
    });

    it('collection notifies the company URL with exactly { orderId, status } and no other headers', async () => {
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.mid.cells[0].id, cloud.clock.now());
      const before = company.received.length;
      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      const [row] = await settled(order.id, 1);
      assert.equal(row.state, 'SENT');
      assert.equal(row.httpStatus, 200);
      assert.equal(company.received.length, before + 1);
      const req = company.received.at(-1)!;
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/notify');
      assert.deepEqual(JSON.parse(req.body), { orderId: order.id, status: 'COMPLETED' });
      assert.deepEqual(Object.keys(req.headers).sort(), ['connection', 'content-length', 'content-type', 'host']);
      assert.equal(req.headers['content-type'], 'application/json');
    });

    it('subtraction notifies the company with SUBTRACTED', async () => {
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.mid.cells[1].id, cloud.clock.now());
      await finishOrder(cloud.storage, order.id, 'SUBTRACTED', cloud.clock.now());
      await settled(order.id, 1);
      assert.deepEqual(JSON.parse(company.received.at(-1)!.body), { orderId: order.id, status: 'SUBTRACTED' });
    });

    it('a receiver answering 500 gets one attempt; the answer is recorded', async () => {
      company.behave({ status: 500 });
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.mid.cells[2].id, cloud.clock.now());
      const before = company.received.length;
      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      const [row] = await settled(order.id, 1);
      assert.equal(row.httpStatus, 500);
      assert.equal(row.state, 'SENT', 'the spec ignores the notification response');
      cloud.dispatcher.wake();
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(company.received.length, before + 1, 'no retry');
      company.behave({ status: 200 });
    });

    it('a receiver that never answers fails after the timeout, once, and the API is unaffected', async () => {
      company.behave('hang');
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.far.cells[0].id, cloud.clock.now());
      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      const list = await cloud.request('GET', `${BASE}/order/list`, { token: w.companyB.key });
      assert.equal(list.status, 200);
      const [row] = await settled(order.id, 1);
      assert.equal(row.state, 'FAILED');
      assert.match(row.error ?? '', /no answer within 400 ms/);
      company.behave({ status: 200 });
    });

    it('a receiver that is down fails once with the connection error', async () => {
      const down = await startReceiver();
      await down.close();
      await cloud.storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${down.url}/gone` })
        .where('id', '=', w.companyB.id)
        .execute();
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.far.cells[1].id, cloud.clock.now());
      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      const [row] = await settled(order.id, 1);
      assert.equal(row.state, 'FAILED');
      assert.match(row.error ?? '', /ECONNREFUSED/);
      await cloud.storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: `${company.url}/notify` })
        .where('id', '=', w.companyB.id)
        .execute();
    });

    it('a status change that rolls back leaves no event', async () => {
      const order = await create(false);
      await placeOrder(cloud.storage, order.id, w.far.cells[2].id, cloud.clock.now());
      await assert.rejects(
        cloud.deps.uow.run(async (tx) => {
          const { transitionOrder } = await import('../../cloud/services/order-transitions.ts');
          await transitionOrder(tx, { orderId: order.id, to: 'COMPLETED', at: cloud.clock.now() });
          throw new Error('crash before commit');
        }),
        /crash before commit/,
      );
      assert.equal((await rows(order.id)).length, 0);
      const read = await cloud.request('GET', `${BASE}/order/${order.id}?withCurrentStatus=true`, {
        token: w.companyB.key,
      });
      assert.equal(read.body.currentStatus.type, 'DELIVERED');
    });
  });
}
