/** The retry rule of webhook deliveries: exponential with equal jitter, capped, then the dead letter. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextAttemptAt, type RetryPolicy } from '../../cloud/webhooks/backoff.ts';
import { signatureHeader } from '../../cloud/webhooks/signature.ts';
import { verifyLockerSignature } from '../../scripts/webhook-receiver.ts';

const policy: RetryPolicy = { baseMs: 1_000, maxDelayMs: 16_000, windowMs: 60_000 };
const t0 = new Date('2026-01-01T00:00:00.000Z');

describe('webhook retry delays', () => {
  it('double with each failure, each between half and all of its ceiling, whatever the jitter', () => {
    for (const random of [0, 0.37, 0.999]) {
      const delays = [1, 2, 3, 4, 5].map((n) => nextAttemptAt(policy, t0, n, t0, random)!.getTime() - t0.getTime());
      [1_000, 2_000, 4_000, 8_000, 16_000].forEach((ceiling, i) =>
        assert.ok(delays[i] >= ceiling / 2 && delays[i] <= ceiling, `${random}: ${delays}`),
      );
      for (let i = 1; i < delays.length; i++) assert.ok(delays[i] >= delays[i - 1], `growing: ${delays}`);
    }
  });

  it('never wait longer than the largest delay', () => {
    const at = nextAttemptAt(policy, t0, 30, t0, 0.999)!;
    assert.ok(at.getTime() - t0.getTime() <= policy.maxDelayMs);
  });

  it('give up (the dead letter) once the next attempt would fall past the window', () => {
    const late = new Date(t0.getTime() + 55_000);
    assert.equal(nextAttemptAt(policy, t0, 5, late, 0.5), undefined);
    assert.ok(nextAttemptAt(policy, t0, 5, new Date(t0.getTime() + 30_000), 0.5));
  });
});

describe('Locker-Signature', () => {
  it('carries one v1 per signing secret, each verifiable on its own, and binds the timestamp', () => {
    const body = '{"id":"evt_a1","type":"order.created"}';
    const now = new Date();
    const header = signatureHeader(['whsec_new', 'whsec_old'], now, body);
    assert.equal(header.match(/v1=/g)?.length, 2);
    assert.ok(verifyLockerSignature(header, body, ['whsec_new'], now.getTime()));
    assert.ok(verifyLockerSignature(header, body, ['whsec_old'], now.getTime()));
    assert.ok(!verifyLockerSignature(header, body, ['whsec_other'], now.getTime()));
    assert.ok(!verifyLockerSignature(header, `${body} `, ['whsec_new'], now.getTime()), 'another body');
    const t = Math.floor(now.getTime() / 1000);
    assert.ok(
      !verifyLockerSignature(header.replace(`t=${t}`, `t=${t + 1}`), body, ['whsec_new'], now.getTime()),
      'another timestamp',
    );
    assert.ok(!verifyLockerSignature(header, body, ['whsec_new'], now.getTime() + 600_000), 'too old');
  });
});
