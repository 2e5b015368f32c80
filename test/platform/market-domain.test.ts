import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalJson,
  IDEMPOTENCY_WINDOW_MS,
  keyUse,
  requestFingerprint,
} from '../../cloud/domain/platform/market-idempotency.ts';
import { lockerOrderOnRedirect } from '../../cloud/domain/platform/market-redirect.ts';
import { parcelOwner } from '../../cloud/domain/platform/market-owner.ts';
import { toMinorUnits } from '../../cloud/domain/money.ts';
import { isLockerPhone } from '../../cloud/domain/phone.ts';

describe('marketplace rules', () => {
  describe('Idempotency-Key', () => {
    const at = '2026-04-01T08:00:00.000Z';
    const later = (ms: number) => new Date(Date.parse(at) + ms);

    it('a request is the same whatever the order of its fields; undefined fields do not count', () => {
      assert.equal(
        canonicalJson({ b: 1, a: { d: [2, { y: 1, x: null }], c: 'é' } }),
        '{"a":{"c":"é","d":[2,{"x":null,"y":1}]},"b":1}',
      );
      assert.equal(requestFingerprint({ a: 1, b: 2, c: undefined }), requestFingerprint({ b: 2, a: 1 }));
      assert.notEqual(requestFingerprint({ a: 1 }), requestFingerprint({ a: '1' }));
      assert.notEqual(requestFingerprint([1, 2]), requestFingerprint([2, 1]), 'arrays keep their order');
    });

    it('within the hour a key replays its request and refuses another; from the hour on it starts afresh', () => {
      const stored = { createdAt: at, requestHash: 'h1' };
      assert.equal(keyUse(stored, 'h1', later(0)), 'REPLAY');
      assert.equal(keyUse(stored, 'h1', later(IDEMPOTENCY_WINDOW_MS - 1)), 'REPLAY');
      assert.equal(keyUse(stored, 'h2', later(IDEMPOTENCY_WINDOW_MS - 1)), 'REUSED');
      assert.equal(keyUse(stored, 'h1', later(IDEMPOTENCY_WINDOW_MS)), 'EXPIRED');
      assert.equal(keyUse(stored, 'h2', later(IDEMPOTENCY_WINDOW_MS)), 'EXPIRED');
    });
  });

  describe('the locker order on a redirect', () => {
    it('an order not yet placed moves to the new locker, or is withdrawn for a pickup point', () => {
      assert.equal(lockerOrderOnRedirect({ status: 'CREATED', isActive: 1 }, 'POSTOMAT'), 'MOVE');
      assert.equal(lockerOrderOnRedirect({ status: 'CREATED', isActive: 1 }, 'PICKUP'), 'WITHDRAW');
    });

    it('a parcel in a cell or collected cannot be redirected', () => {
      for (const status of ['DELIVERED', 'COMPLETED']) {
        for (const to of ['POSTOMAT', 'PICKUP'] as const)
          assert.equal(lockerOrderOnRedirect({ status, isActive: 1 }, to), 'REFUSE');
      }
    });

    it('without a live order: a new one for a locker, nothing for a pickup point', () => {
      for (const order of [
        undefined,
        null,
        { status: 'SUBTRACTED', isActive: 1 },
        { status: 'CREATED', isActive: 0 },
      ]) {
        assert.equal(lockerOrderOnRedirect(order, 'POSTOMAT'), 'CREATE');
        assert.equal(lockerOrderOnRedirect(order, 'PICKUP'), 'NONE');
      }
    });
  });

  describe("who handles a marketplace's parcels", () => {
    it('the first active logistics partner, else the first active courier partner, else nobody', () => {
      const c = (id: number, type: string, isActive = 1) => ({ id, type, isActive });
      assert.equal(parcelOwner([c(9, 'COURIER'), c(7, 'LOGIST'), c(4, 'LOGIST')])?.id, 4);
      assert.equal(parcelOwner([c(9, 'COURIER'), c(4, 'LOGIST', 0), c(3, 'COURIER')])?.id, 3);
      assert.equal(parcelOwner([c(4, 'LOGIST', 0), c(5, 'WAREHOUSE')]), undefined);
      assert.equal(parcelOwner([]), undefined);
    });
  });

  it('prices in major units become whole minor units', () => {
    assert.deepEqual(
      [toMinorUnits(12.5), toMinorUnits(0.1 + 0.2), toMinorUnits(0), toMinorUnits(19.999)],
      [1250, 30, 0, 2000],
    );
  });

  it("a locker order's phone: + and digits, at most 20 characters", () => {
    assert.ok(isLockerPhone('+996700100002'));
    assert.ok(isLockerPhone(`+${'1'.repeat(19)}`));
    for (const bad of [`+${'1'.repeat(20)}`, '996700100002', '+996 700', '+']) assert.ok(!isLockerPhone(bad), bad);
  });
});
