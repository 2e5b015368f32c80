import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { finishOrder, placeOrder, seedLockerWorld, testUow, type LockerWorld } from '../helpers/locker-world.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { systemClock } from '../../shared/clock.ts';
import { pickCodes } from '../../cloud/domain/codes.ts';

describe('pickCodes', () => {
  it('draws distinct four-digit codes outside the ones in use', () => {
    const inUse = new Set(['0000', '0001']);
    const seq = [0, 1, 1, 2, 3, 2, 4];
    const codes = pickCodes(inUse, 3, () => seq.shift()!);
    assert.deepEqual(codes, ['0002', '0003', '0004'], 'codes in use and repeats are skipped');
    assert.equal(codes.length, 3);
    assert.equal(new Set(codes).size, 3);
    assert.ok(codes.every((c) => !inUse.has(c) && /^\d{4}$/.test(c)));
  });
  it('still finds the last free codes of a nearly full locker', () => {
    const inUse = new Set(Array.from({ length: 9997 }, (_, i) => String(i + 3).padStart(4, '0')));
    assert.deepEqual(pickCodes(inUse, 3).sort(), ['0000', '0001', '0002']);
  });
  it('refuses when fewer codes are free than needed', () => {
    const inUse = new Set(Array.from({ length: 9998 }, (_, i) => String(i).padStart(4, '0')));
    assert.throws(() => pickCodes(inUse, 3), /CODES_EXHAUSTED|no free codes/);
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
      (await storage.db.selectFrom('order_code').select(['password', 'type']).where('postomatId', '=', postomatId).where('active', '=', 1).execute());

    it('never repeat among open orders under concurrent creation', async () => {
      const n = 60;
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          createOrder({ uow: testUow(storage), clock: systemClock }, { companyId: w.companyB.id, postomatId: w.mid.id, toUserPhone: `+99670${1000 + i}`, sendMessage: false }),
        ),
      );
      const codes = await liveCodes(w.mid.id);
      assert.equal(codes.length, n * 3);
      assert.equal(new Set(codes.map((c) => c.password)).size, n * 3);
    });

    it('draw again when a concurrent creation took the same code', async () => {
      // Every creation first draws 1111, 2222, 3333: all but one must collide and retry.
      const rigged = () => {
        const first = [1111, 2222, 3333];
        return (max: number) => (first.length ? first.shift()! : Math.floor(Math.random() * max));
      };
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, (_, i) =>
          createOrder({ uow: testUow(storage), clock: systemClock, randomInt: rigged() }, { companyId: w.companyB.id, postomatId: w.far.id, toUserPhone: `+99671${1000 + i}`, sendMessage: false }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const codes = await liveCodes(w.far.id);
      assert.equal(codes.length, 12);
      assert.equal(new Set(codes.map((c) => c.password)).size, 12);
      assert.equal(codes.filter((c) => c.password === '1111').length, 1);
    });

    it('are released when the order is final, and may then be drawn again', async () => {
      const always = () => { const seq = [4444, 5555, 6666]; return (max: number) => seq.length ? seq.shift()! : Math.floor(Math.random() * max); };
      const first = await createOrder({ uow: testUow(storage), clock: systemClock, randomInt: always() }, { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996720000001', sendMessage: false });
      await placeOrder(storage, first.id, w.near.cells[0].id, new Date());
      await finishOrder(storage, first.id, 'COMPLETED', new Date());
      const second = await createOrder({ uow: testUow(storage), clock: systemClock, randomInt: always() }, { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996720000002', sendMessage: false });
      const codesOf = async (orderId: string) => (await storage.db.selectFrom('order_code').select('password').where('orderId', '=', orderId).orderBy('type').execute()).map((r) => r.password).sort();
      assert.deepEqual(await codesOf(second.id), ['4444', '5555', '6666']);
      assert.deepEqual(await codesOf(first.id), ['4444', '5555', '6666'], 'the finished order keeps its codes for the record');
    });

    it('may repeat at another locker', async () => {
      const rig = () => { const seq = [7777, 8888, 9999]; return () => seq.shift()!; };
      const a = await createOrder({ uow: testUow(storage), clock: systemClock, randomInt: rig() }, { companyId: w.companyB.id, postomatId: w.near.id, toUserPhone: '+996730000001', sendMessage: false });
      const b = await createOrder({ uow: testUow(storage), clock: systemClock, randomInt: rig() }, { companyId: w.companyB.id, postomatId: w.mid.id, toUserPhone: '+996730000002', sendMessage: false });
      assert.ok(a.id && b.id);
    });
  });
}
