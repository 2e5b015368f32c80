/**
 * The typed client's retry rules (the spec's "Retry guidance") against the real cloud behind a
 * fault-injecting proxy: what is retried, after which delays, what never is, and that a create
 * whose answer is lost leaves exactly one order (one parcel) behind.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApiError, LockerClient, MarketClient, NetworkError } from '../../client/src/index.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { marketClient, seedMarketWorld, type MarketWorld } from '../helpers/market-world.ts';
import { DIALECTS } from '../helpers/storage.ts';

const CREATE = (r: { method: string; path: string }) => r.method === 'POST' && r.path.endsWith('/order/create');
const READ = (r: { method: string; path: string }) => r.method === 'GET' && /\/order\/[a-z0-9]+$/.test(r.path);

describe('client retries (sqlite)', () => {
  let cloud: TestCloud;
  let proxy: FaultProxy;
  let key: string;
  let lockerId: string;
  let companyId: string;
  let delays: number[];
  let market: MarketWorld;
  const client = () => new LockerClient({ baseUrl: proxy.url, apiKey: key, sleep: async (ms) => void delays.push(ms) });
  const ordersWith = async (customData: string) =>
    cloud.storage.db
      .selectFrom('locker_order')
      .select('id')
      .where('companyId', '=', companyId)
      .where('customData', '=', customData)
      .execute();

  before(async () => {
    cloud = await startTestCloud(DIALECTS[0]);
    const db = cloud.storage.db;
    const c = await createLockerCompany(
      db,
      { title: 'Retry Co', defaultDays: 2, balance: 0, orderPrice: 0 },
      new Date(),
    );
    companyId = c.id;
    key = (await createLockerApiKey(db, c.id, undefined, new Date())).key;
    lockerId = (
      await createPostomat(
        db,
        { title: 'Retry Mall', shortId: 'RTR001' },
        [{ number: 1, size: 'M', board: 0, lock: 1 }],
        new Date(),
      )
    ).id;
    market = await seedMarketWorld(cloud);
  });
  beforeEach(async () => {
    delays = [];
    await proxy?.close();
    proxy = await startFaultProxy(cloud.url);
  });
  after(async () => {
    await proxy?.close();
    await cloud.stop();
  });

  const body = (customData?: string) => ({
    toUserPhone: '+996555000222',
    postomatId: lockerId,
    sendMessage: false,
    ...(customData ? { customData } : {}),
  });

  it('a read is retried after a cut connection, a 502 and a 503, with growing delays', async () => {
    const order = await client().createOrder(body('read-1'));
    proxy.plan(READ, [{ kind: 'drop' }, { kind: 'status', status: 502 }, { kind: 'status', status: 503 }]);
    const read = await client().getOrder(order.id);
    assert.equal(read.id, order.id);
    assert.deepEqual(delays, [400, 800, 1600]);
    assert.equal(proxy.seen.filter((s) => READ(s)).length, 4);
  });

  it('a read gives up after its attempts with the last error, typed', async () => {
    proxy.plan(
      READ,
      Array.from({ length: 10 }, () => ({ kind: 'status' as const, status: 502 })),
    );
    await assert.rejects(
      client().getOrder('cm0000000000000000000001'),
      (err: unknown) => err instanceof ApiError && err.statusCode === 502,
    );
    assert.equal(proxy.seen.length, 4, 'four attempts in all');
    assert.deepEqual(delays, [400, 800, 1600]);
  });

  it('400, 401, 404, 409 are never retried, and carry the spec fields', async () => {
    await assert.rejects(
      client().getOrder('cm0000000000000000000001'),
      (err: unknown) => err instanceof ApiError && err.statusCode === 404 && err.message.length > 0,
    );
    await assert.rejects(
      new LockerClient({
        baseUrl: proxy.url,
        apiKey: 'plk_wrong',
        sleep: async (ms) => void delays.push(ms),
      }).listOrders(),
      (err: unknown) => err instanceof ApiError && err.statusCode === 401,
    );
    await assert.rejects(
      client().createOrder({ ...body('bad'), toUserPhone: 'x' }),
      (err: unknown) => err instanceof ApiError && err.statusCode === 400 && err.code === 'FST_ERR_VALIDATION',
    );
    proxy.plan(READ, [
      { kind: 'status', status: 409, body: { statusCode: 409, error: 'Conflict', message: 'no', code: 'X' } },
    ]);
    await assert.rejects(
      client().getOrder('cm0000000000000000000001'),
      (err: unknown) => err instanceof ApiError && err.statusCode === 409 && err.code === 'X',
    );
    assert.equal(proxy.seen.length, 4, 'one request each');
    assert.deepEqual(delays, []);
  });

  it('a 429 is waited out for Retry-After seconds, by a create too', async () => {
    proxy.plan(CREATE, [
      {
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '2' },
        body: {
          statusCode: 429,
          error: 'Too Many Requests',
          message: 'Too Many Requests',
          code: 'RATE_LIMIT_EXCEEDED',
        },
      },
    ]);
    const order = await client().createOrder(body('rate-1'));
    assert.ok(order.id);
    assert.deepEqual(delays, [2000]);
    assert.equal((await ordersWith('rate-1')).length, 1);
  });

  it('a create whose answer is lost is found by its customData: exactly one order, the same one answered', async () => {
    proxy.plan(CREATE, [{ kind: 'lose-answer' }]);
    const order = await client().createOrder(body('lost-1'));
    const rows = await ordersWith('lost-1');
    assert.equal(rows.length, 1);
    assert.equal(order.id, rows[0].id);
    assert.equal(proxy.seen.filter((s) => CREATE(s)).length, 1, 'not created again');
  });

  it('a create refused with a 502 before reaching the cloud is made once after the search finds nothing', async () => {
    proxy.plan(CREATE, [{ kind: 'status', status: 502 }, { kind: 'drop' }]);
    const order = await client().createOrder(body('bad-gateway-1'));
    const rows = await ordersWith('bad-gateway-1');
    assert.deepEqual(
      rows.map((r) => r.id),
      [order.id],
    );
    assert.equal(proxy.seen.filter((s) => CREATE(s)).length, 3);
    assert.equal(proxy.seen.filter((s) => s.path.includes('/order/list')).length, 2, 'searched before each new create');
  });

  it('without customData a lost answer is not retried blindly: the error is thrown, one order exists', async () => {
    const before = (
      await cloud.storage.db.selectFrom('locker_order').select('id').where('companyId', '=', companyId).execute()
    ).length;
    proxy.plan(CREATE, [{ kind: 'lose-answer' }]);
    await assert.rejects(client().createOrder(body()), (err: unknown) => err instanceof NetworkError);
    const afterCount = (
      await cloud.storage.db.selectFrom('locker_order').select('id').where('companyId', '=', companyId).execute()
    ).length;
    assert.equal(afterCount, before + 1);
    assert.equal(proxy.seen.filter((s) => CREATE(s)).length, 1);
  });

  it('a marketplace parcel create is retried with the same Idempotency-Key: one parcel', async () => {
    const m = marketClient(cloud, market);
    const parcels = new MarketClient({
      baseUrl: proxy.url,
      apiToken: market.keys.market,
      sleep: async (ms) => void delays.push(ms),
    });
    const isParcelCreate = (r: { method: string; path: string }) =>
      r.method === 'POST' && r.path.endsWith('/parcel/create');
    proxy.plan(isParcelCreate, [{ kind: 'lose-answer' }, { kind: 'status', status: 503 }]);
    const trackCode = `TRK${Date.now()}`;
    const parcel = await parcels.createParcel({ ...m.body(), trackCode } as never);
    const attempts = proxy.seen.filter(isParcelCreate);
    assert.equal(attempts.length, 3);
    assert.equal(new Set(attempts.map((a) => a.headers['idempotency-key'])).size, 1, 'one key for every attempt');
    assert.ok(attempts[0].headers['idempotency-key'], 'the client made a key');
    const rows = await cloud.storage.db.selectFrom('parcel').select('id').where('trackCode', '=', trackCode).execute();
    assert.equal(rows.length, 1);
    assert.equal((await parcels.parcelStatus(trackCode)).trackCode, trackCode);
    assert.ok(parcel);
  });
});
