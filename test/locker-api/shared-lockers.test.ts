/**
 * No company shuts another out of a shared locker (issue 16, point 9), and `days` has a
 * maximum that keeps the storage end a date (point 4), through the real HTTP API:
 * - a company's orders waiting for placement at one locker are bounded (409 TOO_MANY_PENDING_ORDERS),
 *   the other companies' are not affected;
 * - codes use the spec's per-type space: a locker whose live orders hold more codes than there
 *   are four-digit codes still takes orders;
 * - orders never placed expire after UNPLACED_ORDER_DAYS (a ManualClock moves time), leaving
 *   the lists and counters and freeing their codes and their place under the bound.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../shared/clock.ts';
import { loadConfig } from '../../cloud/config.ts';
import { formatCode } from '../../cloud/domain/codes.ts';
import type { CodeType } from '../../cloud/domain/order-states.ts';
import { newId } from '../../cloud/storage/ids.ts';
import type { Db } from '../../cloud/storage/database.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { placeOrder, seedLockerWorld, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { expireOrder } from '../../cloud/services/order-expiry.ts';

const BASE = '/api/v1/integration/company';
const DAY = 86_400_000;
const LIMIT = 100;

describe('configuration of the pending-order bound', () => {
  it('defaults to 500 and may not go below 100', () => {
    assert.equal(loadConfig({}).PENDING_ORDERS_PER_LOCKER, 500);
    assert.equal(loadConfig({}).UNPLACED_ORDER_DAYS, 30);
    assert.throws(() => loadConfig({ PENDING_ORDERS_PER_LOCKER: '20' }), /PENDING_ORDERS_PER_LOCKER must be >= 100/);
  });
});

for (const dialect of DIALECTS) {
  describe(`shared lockers (${dialect.name})`, () => {
    let cloud: TestCloud;
    let clock: ManualClock;
    let w: LockerWorld;
    before(async () => {
      clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
      cloud = await startTestCloud(dialect, {
        clock,
        env: { PENDING_ORDERS_PER_LOCKER: String(LIMIT), ORDER_EXPIRY_INTERVAL_MS: '0' },
      });
      w = await seedLockerWorld(cloud.storage.db, clock.now());
    });
    after(() => cloud.stop());

    const create = (token: string, postomatId: string, extra: Record<string, unknown> = {}) =>
      cloud.request('POST', `${BASE}/order/create`, {
        token,
        body: { toUserPhone: '+996555010101', postomatId, sendMessage: false, ...extra },
      });
    const list = async (token: string) =>
      (await cloud.request('GET', `${BASE}/order/list?pageSize=1000&status=CREATED`, { token })).body;

    describe('days', () => {
      it('accepts up to 365 days and refuses more, as a validation error', async () => {
        const ok = await create(w.companyB.key, w.far.id, { days: 365 });
        assert.equal(ok.status, 200, ok.text);
        assert.equal(ok.body.days, 365);
        for (const days of [366, 100_000_001, 2_147_483_648]) {
          const res = await create(w.companyB.key, w.far.id, { days });
          assert.equal(res.status, 400, `days ${days}`);
          assert.deepEqual(res.body, {
            statusCode: 400,
            error: 'Bad Request',
            message: 'body/days must be <= 365',
            code: 'FST_ERR_VALIDATION',
          });
        }
      });

      it('an order stored with a longer period before the bound existed is placed with a year', async () => {
        const res = await create(w.companyB.key, w.far.id);
        await cloud.storage.db
          .updateTable('locker_order')
          .set({ days: 100_000_001 })
          .where('id', '=', res.body.id)
          .execute();
        const placed = await placeOrder(cloud.storage, res.body.id, w.far.cells[0].id, clock.now());
        assert.equal(Date.parse(placed.endDateTime!) - Date.parse(placed.startDateTime!), 365 * DAY);
      });
    });

    describe('the pending orders of one company at one locker', () => {
      it(`are bounded at PENDING_ORDERS_PER_LOCKER (${LIMIT}): the next is refused with 409, writing nothing`, async () => {
        for (let i = 0; i < LIMIT; i++) {
          const res = await create(w.companyA.key, w.near.id);
          assert.equal(res.status, 200, `order ${i + 1}: ${res.text}`);
        }
        const db = cloud.storage.db;
        const orders = await db.selectFrom('locker_order').select('id').execute();
        const balance = async () =>
          (
            await db
              .selectFrom('locker_company')
              .select('balance')
              .where('id', '=', w.companyA.id)
              .executeTakeFirstOrThrow()
          ).balance;
        const balanceBefore = await balance();
        const refused = await create(w.companyA.key, w.near.id, { pay: true });
        assert.equal(refused.status, 409);
        assert.deepEqual(refused.body, { statusCode: 409, error: 'Conflict', message: 'TOO_MANY_PENDING_ORDERS' });
        assert.equal(
          (await db.selectFrom('locker_order').select('id').execute()).length,
          orders.length,
          'no order written',
        );
        assert.equal(await balance(), balanceBefore, 'nothing paid');
      });

      it('leave every other company, and the same company at other lockers, free to order', async () => {
        assert.equal((await create(w.companyB.key, w.near.id)).status, 200, 'another company at the same locker');
        assert.equal((await create(w.companyA.key, w.mid.id)).status, 200, 'the same company at another locker');
      });

      it('make room again as parcels are placed', async () => {
        const [first] = (await list(w.companyA.key)).data.filter((o: any) => o.postomatId === w.near.id);
        await placeOrder(cloud.storage, first.id, w.near.cells[1].id, clock.now());
        assert.equal((await create(w.companyA.key, w.near.id)).status, 200);
        assert.equal((await create(w.companyA.key, w.near.id)).status, 409);
      });

      it('expire UNPLACED_ORDER_DAYS after creation: out of lists and counters, codes freed, room made', async () => {
        const before = await list(w.companyA.key);
        const pending = before.data.filter((o: any) => o.postomatId === w.near.id);
        assert.equal(pending.length, LIMIT);
        clock.advance(29 * DAY);
        await cloud.orderExpiry.runNow();
        assert.equal((await list(w.companyA.key)).total, before.total, 'not yet after 29 days');

        clock.advance(1 * DAY + 1000);
        await cloud.orderExpiry.runNow();
        const after = await list(w.companyA.key);
        assert.equal(after.total, 0, 'every CREATED order of the company is older than 30 days now');
        const one = await cloud.request('GET', `${BASE}/order/${pending[0].id}?withCurrentStatus=true`, {
          token: w.companyA.key,
        });
        assert.equal(one.status, 200, 'still readable by id');
        assert.equal(one.body.isActive, false);
        assert.equal(one.body.currentStatus.type, 'CREATED');
        const live = await cloud.storage.db
          .selectFrom('order_code')
          .select('id')
          .where('orderId', '=', pending[0].id)
          .where('active', '=', 1)
          .execute();
        assert.deepEqual(live, [], 'its codes are free again at the locker');
        const removed = await cloud.storage.db
          .selectFrom('locker_sync_change')
          .select('orderId')
          .where('postomatId', '=', w.near.id)
          .where('orderId', '=', pending[0].id)
          .execute();
        assert.equal(removed.length, 1, 'a change for the locker, so its agent drops the order');
        assert.equal((await create(w.companyA.key, w.near.id)).status, 200, 'room under the bound again');
      });
    });

    describe('an expired order placed after all (its locker was offline)', () => {
      it('comes back active, as DELIVERED, with a fresh code where another order took one of its codes', async () => {
        const db = cloud.storage.db;
        const rig =
          (...seq: number[]) =>
          (max: number) =>
            seq.length ? seq.shift()! : Math.floor(Math.random() * max);
        const deps = (randomInt: (max: number) => number) => ({ uow: testUow(cloud.storage), clock, randomInt });
        const input = {
          companyId: w.companyB.id,
          postomatId: w.mid.id,
          toUserPhone: '+996555020202',
          sendMessage: true,
        };
        const expired = await createOrder(deps(rig(1111, 2222, 3333)), input);
        assert.equal(await testUow(cloud.storage).run((tx) => expireOrder(tx, expired.id, clock.now())), true);
        // Its codes are free: another order takes 2222 as its UP code.
        const other = await createOrder(deps(rig(5555, 2222, 6666)), input);
        const codesOf = async (orderId: string) =>
          Object.fromEntries(
            (
              await db
                .selectFrom('order_code')
                .select(['type', 'password', 'active'])
                .where('orderId', '=', orderId)
                .execute()
            ).map((c) => [c.type, `${c.password}:${c.active}`]),
          );
        assert.equal((await codesOf(other.id)).UP, '2222:1');
        const delivered = async () =>
          Number(
            (
              await db
                .selectFrom('order_stats')
                .select('count')
                .where('companyId', '=', w.companyB.id)
                .where('status', '=', 'DELIVERED')
                .executeTakeFirst()
            )?.count ?? 0,
          );
        const before = await delivered();

        await placeOrder(cloud.storage, expired.id, w.mid.cells[2].id, clock.now());
        const row = await db
          .selectFrom('locker_order')
          .selectAll()
          .where('id', '=', expired.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual([row.status, row.isActive, row.expiredAt], ['DELIVERED', 1, null]);
        const revived = await codesOf(expired.id);
        assert.equal(revived.DOWN, '1111:1');
        assert.equal(revived.SUBTRACT, '3333:1');
        assert.match(revived.UP, /^\d{4}:1$/);
        assert.ok(
          !['2222', '1111', '3333', '5555', '6666'].includes(revived.UP.slice(0, 4)),
          'a fresh UP code, apart from every live one',
        );
        assert.equal(await delivered(), before + 1, 'back in the counters');
        const listed = await cloud.request('GET', `${BASE}/order/list?pageSize=100&status=DELIVERED`, {
          token: w.companyB.key,
        });
        assert.ok(
          listed.body.data.some((o: any) => o.id === expired.id),
          'back in the list',
        );
      });
    });

    describe("the spec's per-type code space", () => {
      it('a locker whose live orders hold more codes than four digits allow still takes orders', async () => {
        // 3,333 placed orders of company B hold 9,999 codes: under the old rule (no code
        // repeated across types) one code was left, and every creation answered 503.
        const codes = await seedPlacedOrders(
          cloud.storage.db,
          w.noCoords.id,
          w.companyB.id,
          w.noCoords.cells[0].id,
          3333,
          clock.now().toISOString(),
        );
        const res = await create(w.companyA.key, w.noCoords.id);
        assert.equal(res.status, 200, res.text);
        const mine = Object.fromEntries(
          (
            await cloud.storage.db
              .selectFrom('order_code')
              .select(['type', 'password'])
              .where('orderId', '=', res.body.id)
              .execute()
          ).map((c) => [c.type, c.password]),
        );
        assert.ok(!codes.DOWN.has(mine.DOWN), 'its DOWN code differs from every live DOWN code');
        for (const t of ['UP', 'SUBTRACT'])
          assert.ok(
            !codes.UP.has(mine[t]) && !codes.SUBTRACT.has(mine[t]),
            `its ${t} code opens no other parcel's cell`,
          );
        assert.equal(new Set(Object.values(mine)).size, 3);
      });

      it('the database refuses a DOWN code twice, and an UP code that is a live SUBTRACT code, at one locker', async () => {
        const db = cloud.storage.db;
        const [a, b] = await seedPlacedOrders(
          db,
          w.inactive.id,
          w.companyB.id,
          w.inactive.cells[0].id,
          2,
          clock.now().toISOString(),
        ).then(() => db.selectFrom('locker_order').select('id').where('postomatId', '=', w.inactive.id).execute());
        const at = clock.now().toISOString();
        const code = (orderId: string, type: CodeType, password: string) => ({
          id: newId(),
          orderId,
          postomatId: w.inactive.id,
          type,
          password,
          active: 1,
          createdAt: at,
          updatedAt: at,
        });
        await db
          .insertInto('order_code')
          .values(code(a.id, 'DOWN', '7777'))
          .execute();
        await assert.rejects(
          db
            .insertInto('order_code')
            .values(code(b.id, 'DOWN', '7777'))
            .execute(),
          'two live DOWN codes alike',
        );
        await db
          .insertInto('order_code')
          .values(code(b.id, 'UP', '7777'))
          .execute(); // a DOWN and an UP alike: the spec allows it
        await db
          .insertInto('order_code')
          .values(code(a.id, 'SUBTRACT', '8888'))
          .execute();
        await assert.rejects(
          db
            .insertInto('order_code')
            .values(code(b.id, 'UP', '8888'))
            .execute(),
          'an UP that is a live SUBTRACT',
        );
      });
    });
  });
}

/**
 * `count` DELIVERED orders at a locker with codes DOWN i, UP 3333 + i, SUBTRACT 6666 + i (each
 * of the 9,999 codes once), written in big inserts; the company's counters are left alone
 * (they are not what this is about).
 */
async function seedPlacedOrders(
  db: Db,
  postomatId: string,
  companyId: string,
  cellId: string,
  count: number,
  at: string,
) {
  const toUserId = newId();
  await db
    .insertInto('recipient')
    .values({
      id: toUserId,
      phone: `+99650${Date.now() % 1e7}${Math.floor(Math.random() * 1e3)}`,
      createdAt: at,
      updatedAt: at,
    })
    .execute();
  const orders = [];
  const codes = [];
  const sets = { DOWN: new Set<string>(), UP: new Set<string>(), SUBTRACT: new Set<string>() };
  for (let i = 0; i < count; i++) {
    const id = newId();
    orders.push({
      id,
      postomatId,
      companyId,
      toUserId,
      cellId,
      currentStatusId: null,
      status: 'DELIVERED' as const,
      days: 3,
      weight: 0,
      customData: null,
      sendMessage: 0,
      isActive: 1,
      price: 0,
      deliveryPrice: 0,
      paidAmount: 0,
      notPaidAmount: 0,
      promoCodeAmount: 0,
      startDateTime: at,
      endDateTime: at,
      createdAt: at,
      updatedAt: at,
    });
    for (const [type, n] of [
      ['DOWN', i],
      ['UP', 3333 + i],
      ['SUBTRACT', 6666 + i],
    ] as const) {
      codes.push({
        id: newId(),
        orderId: id,
        postomatId,
        type,
        password: formatCode(n),
        active: 1,
        createdAt: at,
        updatedAt: at,
      });
      sets[type].add(formatCode(n));
    }
  }
  for (let i = 0; i < orders.length; i += 500)
    await db
      .insertInto('locker_order')
      .values(orders.slice(i, i + 500))
      .execute();
  for (let i = 0; i < codes.length; i += 1000)
    await db
      .insertInto('order_code')
      .values(codes.slice(i, i + 1000))
      .execute();
  return sets;
}
