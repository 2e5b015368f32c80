import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { finishOrder, placeOrder, seedLockerWorld, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { systemClock } from '../../shared/clock.ts';
import {
  clashingCodes,
  formatCode,
  noLiveCodes,
  pickFreeCodes,
  pickOrderCodes,
  type LiveCodes,
} from '../../cloud/domain/codes.ts';
import { liveCodesAmong, orderTargetAt } from '../../cloud/storage/order-queries.ts';

const codes = (from: number, to: number) => new Set(Array.from({ length: to - from }, (_, i) => formatCode(from + i)));
const live = (l: Partial<LiveCodes>): LiveCodes => ({ ...noLiveCodes(), ...l });

describe("pickOrderCodes: the spec's per-type code space, kept apart across types while it can be", () => {
  it('draws three distinct codes, each outside the live codes of its space', () => {
    const seq = [1, 2, 2, 3, 1, 4, 4, 5];
    const picked = pickOrderCodes(live({ DOWN: new Set(['0001']), SUBTRACT: new Set(['0003']) }), () => seq.shift()!);
    // DOWN skips the live DOWN 0001; UP skips the order's own 0002, the live SUBTRACT 0003 and
    // the live DOWN 0001 (kept apart while it can be); SUBTRACT skips the order's own 0004.
    assert.deepEqual(picked, { DOWN: '0002', UP: '0004', SUBTRACT: '0005' });
  });
  it('a DOWN code may equal a live UP code only when no other DOWN code is left', () => {
    const picked = pickOrderCodes(live({ DOWN: codes(1, 10_000), UP: new Set(['0000']) }));
    assert.equal(picked.DOWN, '0000', 'the one DOWN code left, though it is a live UP code');
    assert.notEqual(picked.UP, '0000');
    assert.notEqual(picked.SUBTRACT, '0000');
  });
  it('keeps taking orders when the three types together use more than the code space', () => {
    // 4,000 live orders: 12,000 live codes, over the 10,000 four-digit codes.
    const l = live({
      DOWN: codes(0, 4000),
      UP: codes(4000, 8000),
      SUBTRACT: new Set([...codes(8000, 10_000), ...codes(0, 2000)]),
    });
    const picked = pickOrderCodes(l);
    assert.ok(!l.DOWN.has(picked.DOWN));
    for (const c of [picked.UP, picked.SUBTRACT])
      assert.ok(!l.UP.has(c) && !l.SUBTRACT.has(c), 'an opening code opens one parcel only');
    assert.equal(new Set(Object.values(picked)).size, 3);
  });
  it('refuses when one space has no code left', () => {
    assert.throws(() => pickOrderCodes(live({ DOWN: codes(0, 10_000) })), /CODES_EXHAUSTED|no free DOWN code/);
    // UP and SUBTRACT share their space: one free code there is not enough for both.
    assert.throws(
      () => pickOrderCodes(live({ UP: codes(0, 5000), SUBTRACT: codes(5000, 9999) })),
      /no free UP and SUBTRACT codes/,
    );
  });
  it('pickFreeCodes: three draws and one question in the common case, more draws for live codes, none left to chance', async () => {
    const asked: string[][] = [];
    const liveOf = (taken: string[]) => async (drawn: string[]) => {
      asked.push(drawn);
      return new Set(drawn.filter((c) => taken.includes(c)));
    };
    const seq =
      (...n: number[]) =>
      () =>
        n.shift()!;
    assert.deepEqual(await pickFreeCodes(liveOf([]), seq(11, 22, 33)), { DOWN: '0011', UP: '0022', SUBTRACT: '0033' });
    assert.deepEqual(asked, [['0011', '0022', '0033']], 'only the drawn codes are asked about');

    // 0022 is live: four more draws replace it; a code drawn twice counts once.
    asked.length = 0;
    const picked = await pickFreeCodes(liveOf(['0022', '0044']), seq(11, 22, 33, 11, 44, 55, 66));
    assert.deepEqual(picked, { DOWN: '0011', UP: '0033', SUBTRACT: '0055' });
    assert.deepEqual(asked, [
      ['0011', '0022', '0033'],
      ['0044', '0055', '0066'],
    ]);

    // Every draw lands on a live code: undefined, and pickOrderCodes decides over the whole list.
    assert.equal(await pickFreeCodes(liveOf(['0007']), () => 7), undefined);
  });

  it('names the codes a move must draw afresh', () => {
    const l = live({ DOWN: new Set(['1111']), SUBTRACT: new Set(['2222']) });
    assert.deepEqual(clashingCodes({ DOWN: '2222', UP: '2222', SUBTRACT: '3333' }, l), ['UP']);
    assert.deepEqual(clashingCodes({ DOWN: '1111', UP: '4444', SUBTRACT: '1111' }, l), ['DOWN']);
  });
});

for (const dialect of DIALECTS) {
  describe(`order codes at one locker (${dialect.name})`, () => {
    let storage: TestStorage;
    let w: LockerWorld;
    before(async () => {
      storage = await openTestStorage(dialect);
      w = await seedLockerWorld(storage.db);
    });
    after(() => storage.destroy());

    const liveCodes = async (postomatId: string) =>
      await storage.db
        .selectFrom('order_code')
        .select(['password', 'type'])
        .where('postomatId', '=', postomatId)
        .where('active', '=', 1)
        .execute();

    it('never repeat among open orders under concurrent creation', async () => {
      const n = 60;
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          createOrder(
            { uow: testUow(storage), clock: systemClock },
            { companyId: w.companyB.id, postomatId: w.mid.id, toUserPhone: `+99670${1000 + i}`, sendMessage: false },
          ),
        ),
      );
      const codes = await liveCodes(w.mid.id);
      assert.equal(codes.length, n * 3);
      // What the database guarantees however the creations interleave (migration 016): no two live
      // codes alike within the drop-off space, nor within the opening space (pickup and subtract).
      const drop = codes.filter((c) => c.type === 'DOWN').map((c) => c.password);
      const open = codes.filter((c) => c.type !== 'DOWN').map((c) => c.password);
      assert.equal(new Set(drop).size, n);
      assert.equal(new Set(open).size, 2 * n);
      // Keeping a drop-off code apart from the opening codes as well is best effort (codes.ts): it
      // holds when creations are serialized, as SQLite's one writer does; two PostgreSQL
      // transactions that draw at once may give one order's DOWN another's UP (the spec allows it).
      if (dialect.name === 'sqlite') assert.equal(new Set(codes.map((c) => c.password)).size, n * 3);
    });

    it('draw again when a concurrent creation took the same code', async () => {
      // Every creation first draws 1111, 2222, 3333: all but one must collide and retry.
      const rigged = () => {
        const first = [1111, 2222, 3333];
        return (max: number) => (first.length ? first.shift()! : Math.floor(Math.random() * max));
      };
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, (_, i) =>
          createOrder(
            { uow: testUow(storage), clock: systemClock, randomInt: rigged() },
            { companyId: w.companyB.id, postomatId: w.far.id, toUserPhone: `+99671${1000 + i}`, sendMessage: false },
          ),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
      );
      const codes = await liveCodes(w.far.id);
      assert.equal(codes.length, 12);
      assert.equal(new Set(codes.map((c) => c.password)).size, 12);
      assert.equal(codes.filter((c) => c.password === '1111').length, 1);
    });

    it('are released when the order is final, and may then be drawn again', async () => {
      const always = () => {
        const seq = [4444, 5555, 6666];
        return (max: number) => (seq.length ? seq.shift()! : Math.floor(Math.random() * max));
      };
      const first = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: always() },
        { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996720000001', sendMessage: false },
      );
      await placeOrder(storage, first.id, w.near.cells[0].id, new Date());
      await finishOrder(storage, first.id, 'COMPLETED', new Date());
      const second = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: always() },
        { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996720000002', sendMessage: false },
      );
      const codesOf = async (orderId: string) =>
        (
          await storage.db
            .selectFrom('order_code')
            .select('password')
            .where('orderId', '=', orderId)
            .orderBy('type')
            .execute()
        )
          .map((r) => r.password)
          .sort();
      assert.deepEqual(await codesOf(second.id), ['4444', '5555', '6666']);
      assert.deepEqual(
        await codesOf(first.id),
        ['4444', '5555', '6666'],
        'the finished order keeps its codes for the record',
      );
    });

    it('are checked by the drawn codes alone; a locker where draws keep finding live codes is decided over its whole list', async () => {
      const seq =
        (...n: number[]) =>
        () =>
          n.shift()!;
      const first = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: seq(1212, 2323, 3434) },
        { companyId: w.companyB.id, postomatId: w.far.id, toUserPhone: '+996740000001', sendMessage: false },
      );
      assert.deepEqual([...(await liveCodesAmong(storage.db, w.far.id, ['1212', '2323', '3434', '4545']))].sort(), [
        '1212',
        '2323',
        '3434',
      ]);
      assert.equal((await liveCodesAmong(storage.db, w.near.id, ['1212'])).size, 0, 'another locker');
      // Every draw gives 1212, a live code: the fast draws give up and the whole list decides.
      const second = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: () => 1212 },
        { companyId: w.companyB.id, postomatId: w.far.id, toUserPhone: '+996740000002', sendMessage: false },
      );
      const codesOf = async (orderId: string) =>
        (await storage.db.selectFrom('order_code').select('password').where('orderId', '=', orderId).execute()).map(
          (r) => r.password,
        );
      const [a, b] = [await codesOf(first.id), await codesOf(second.id)];
      assert.equal(new Set([...a, ...b]).size, 6, `${a} and ${b} share no code`);
    });

    it('are first asked about in the read that admits the order, and a live one among them is drawn again', async () => {
      const seq =
        (...n: number[]) =>
        () =>
          n.shift()!;
      await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: seq(1357, 2468, 3579) },
        { companyId: w.companyB.id, postomatId: w.far.id, toUserPhone: '+996750000001', sendMessage: false },
      );
      const target = await orderTargetAt(storage.db, w.far.id, w.companyB.id, ['1357', '0001', '3579']);
      assert.deepEqual([...target.liveDrawnCodes].sort(), ['1357', '3579']);
      assert.equal(target.postomatActive, true);
      assert.equal(target.company.id, w.companyB.id);
      assert.equal((await orderTargetAt(storage.db, w.near.id, w.companyB.id, ['1357'])).liveDrawnCodes.size, 0);
      // The first draw meets one live code (2468): the other two stay, four more draws replace it.
      const next = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: seq(2468, 1112, 1113, 2468, 1114, 1115, 1116) },
        { companyId: w.companyB.id, postomatId: w.far.id, toUserPhone: '+996750000002', sendMessage: false },
      );
      const codes = await storage.db
        .selectFrom('order_code')
        .select(['type', 'password'])
        .where('orderId', '=', next.id)
        .orderBy('type')
        .execute();
      assert.deepEqual(Object.fromEntries(codes.map((c) => [c.type, c.password])), {
        DOWN: '1112',
        UP: '1113',
        SUBTRACT: '1114',
      });
    });

    it('may repeat at another locker', async () => {
      const rig = () => {
        const seq = [7777, 8888, 9999];
        return () => seq.shift()!;
      };
      const a = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: rig() },
        { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996730000001', sendMessage: false },
      );
      const b = await createOrder(
        { uow: testUow(storage), clock: systemClock, randomInt: rig() },
        { companyId: w.companyB.id, postomatId: w.mid.id, toUserPhone: '+996730000002', sendMessage: false },
      );
      assert.ok(a.id && b.id);
    });
  });
}
