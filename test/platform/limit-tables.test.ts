import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../shared/clock.ts';
import { LimitWindows, LIMIT_TABLE_CAPACITY } from '../../cloud/http/limit-windows.ts';
import { FailureLimit } from '../../cloud/http/failure-limit.ts';
import { addressKey } from '../../cloud/http/client-address.ts';
import { CredentialCaches } from '../../cloud/http/credential-caches.ts';
import { authLimitsOf, loadConfig, ConfigError } from '../../cloud/config.ts';
import { DEFAULT_AUTH_LIMITS } from '../../cloud/deps.ts';

describe('limit tables are bounded', () => {
  it('a flood of distinct failing addresses far beyond the capacity never grows the table past it', () => {
    const clock = new ManualClock();
    const limit = new FailureLimit(5, 600_000, clock);
    let largest = 0;
    for (let i = 0; i < 3 * LIMIT_TABLE_CAPACITY; i++) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      limit.check(address);
      limit.attempt(address);
      largest = Math.max(largest, limit.windows.size);
      if (i % 1000 === 0) clock.advance(1); // inside one window: nothing expires, so only eviction bounds it
    }
    assert.equal(largest, LIMIT_TABLE_CAPACITY);
  });

  it('when full, the window that opened first is dropped', () => {
    const windows = new LimitWindows(60_000, new ManualClock(), 3);
    for (const key of ['a', 'b', 'c', 'd']) windows.add(key);
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((k) => windows.count(k)),
      [0, 1, 1, 1],
    );
  });

  it('a window that restarts counts as the newest', () => {
    const clock = new ManualClock();
    const windows = new LimitWindows(60_000, clock, 3);
    windows.add('a');
    clock.advance(30_000);
    windows.add('b');
    windows.add('c');
    clock.advance(30_000); // a's window has ended; b's and c's run on
    windows.add('a');
    windows.add('d'); // full: b is now the oldest
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((k) => windows.count(k)),
      [1, 0, 1, 1],
    );
  });

  it('ended windows are dropped as new ones open', () => {
    const clock = new ManualClock();
    const windows = new LimitWindows(60_000, clock);
    for (let i = 0; i < 1000; i++) windows.add(`k${i}`);
    clock.advance(60_000);
    windows.add('fresh');
    assert.equal(windows.size, 1);
  });
});

describe('failure limit', () => {
  it("refuses with the spec's 429 once max attempts failed, with Retry-After until the window ends", () => {
    const clock = new ManualClock();
    const limit = new FailureLimit(2, 60_000, clock);
    limit.attempt('a');
    clock.advance(20_500);
    limit.attempt('a');
    assert.throws(
      () => limit.check('a'),
      (err: any) => {
        assert.deepEqual(err.toBody(), {
          statusCode: 429,
          error: 'Too Many Requests',
          code: 'RATE_LIMIT_EXCEEDED',
          message: 'Too Many Requests',
        });
        assert.deepEqual(err.headers, { 'Retry-After': '40' });
        return true;
      },
    );
    clock.advance(39_500);
    limit.check('a');
  });

  it('an attempt that succeeded is taken back', () => {
    const limit = new FailureLimit(1, 60_000, new ManualClock());
    limit.succeeded(limit.attempt('a'));
    limit.check('a');
    limit.attempt('a');
    assert.throws(() => limit.check('a'));
  });

  it('max 0 switches it off and keeps no table', () => {
    const limit = new FailureLimit(0, 60_000, new ManualClock());
    for (let i = 0; i < 10; i++) limit.attempt('a');
    limit.check('a');
    assert.equal(limit.windows.size, 0);
  });
});

describe('client address', () => {
  it('IPv4 as it is, also when it arrives mapped into IPv6', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  });

  it('IPv6 by its /64, however it is written', () => {
    const a = addressKey('2001:db8:abcd:12::1');
    assert.equal(a, '2001:db8:abcd:12::/64');
    assert.equal(addressKey('2001:0DB8:ABCD:0012:ffff:ffff:ffff:fffe'), a);
    assert.equal(addressKey('2001:db8:abcd:12:0:0:0:1%eth0'), a);
    assert.notEqual(addressKey('2001:db8:abcd:13::1'), a);
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
  });

  it('no address or a strange one is one shared "unknown"', () => {
    assert.equal(addressKey(undefined), 'unknown');
    assert.equal(addressKey('not an address'), 'unknown');
  });
});

describe('credential caches', () => {
  it('remember a found credential for the TTL; unknown ones not at all', async () => {
    const clock = new ManualClock();
    const caches = new CredentialCaches(clock, 5_000);
    let lookups = 0;
    const keys = caches.cache(async (k) => (lookups++, k === 'good' ? { id: 1 } : undefined));
    assert.deepEqual(await keys.load('good'), { id: 1 });
    assert.equal(await keys.load('bad'), undefined);
    assert.deepEqual(keys.cached('good'), { id: 1 });
    assert.equal(keys.cached('bad'), undefined);
    clock.advance(5_001);
    assert.equal(keys.cached('good'), undefined);
    assert.equal(lookups, 2);
  });

  it('revokeAll empties every cache of the app', async () => {
    const caches = new CredentialCaches(new ManualClock());
    const one = caches.cache(async () => 'one');
    const two = caches.cache(async () => 'two');
    await one.load('a');
    await two.load('b');
    caches.revokeAll();
    assert.deepEqual([one.cached('a'), two.cached('b'), caches.size], [undefined, undefined, 0]);
  });

  it('a lookup under way during a revocation is answered but not remembered (it may have read the row before the change)', async () => {
    const caches = new CredentialCaches(new ManualClock());
    let release!: (v: string) => void;
    const keys = caches.cache(() => new Promise<string | undefined>((resolve) => (release = resolve)));
    const pending = keys.load('k');
    caches.revokeAll();
    release('stale');
    assert.equal(await pending, 'stale');
    assert.equal(keys.cached('k'), undefined);
  });
});

describe('configuration of the failure limits', () => {
  it('defaults, and the variables that change them', () => {
    assert.deepEqual(authLimitsOf(loadConfig({})), DEFAULT_AUTH_LIMITS);
    const env = {
      AUTH_FAILURE_MAX: '7',
      AUTH_FAILURE_WINDOW_MS: '120000',
      LOGIN_FAILURE_MAX: '0',
      LOGIN_FAILURE_WINDOW_MS: '3600000',
    };
    assert.deepEqual(authLimitsOf(loadConfig(env)), {
      failureMax: 7,
      failureWindowMs: 120_000,
      loginFailureMax: 0,
      loginFailureWindowMs: 3_600_000,
    });
  });

  it('a bad value fails start-up naming the variable', () => {
    assert.throws(
      () => loadConfig({ AUTH_FAILURE_MAX: '-1' }),
      (err: Error) => err instanceof ConfigError && /AUTH_FAILURE_MAX must be >= 0/.test(err.message),
    );
    assert.throws(() => loadConfig({ LOGIN_FAILURE_WINDOW_MS: 'soon' }), /LOGIN_FAILURE_WINDOW_MS must be a number/);
  });
});
