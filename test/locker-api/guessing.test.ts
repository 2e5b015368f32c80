import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { startLimitsApp, type LimitsApp } from '../platform/limits-harness.ts';
import { startTestApp } from '../helpers/app.ts';

const BASE = '/api/v1/integration/company';
const TOO_MANY = {
  statusCode: 429,
  error: 'Too Many Requests',
  code: 'RATE_LIMIT_EXCEEDED',
  message: 'Too Many Requests',
};

for (const dialect of DIALECTS) {
  describe(`Locker API: guessed keys are refused per address before any lookup (${dialect.name})`, () => {
    let app: LimitsApp;
    let w: LockerWorld;
    before(async () => {
      app = await startLimitsApp(dialect, { authLimits: { failureMax: 20, failureWindowMs: 600_000 } });
      w = await seedLockerWorld(app.storage.db);
    });
    after(() => app.stop());

    const country = (token: string, from?: string) => app.request('GET', `${BASE}/country`, { token, from });

    it('after AUTH_FAILURE_MAX wrong keys an address gets 429 with Retry-After, and its guesses reach the database no more', async () => {
      const first = [];
      for (let i = 0; i < 20; i++) first.push((await country(`plk_guess_${i}`)).status);
      assert.deepEqual(new Set(first), new Set([401]));
      const statements = app.statements();
      for (let i = 20; i < 300; i++) {
        const res = await country(`plk_guess_${i}`);
        assert.equal(res.status, 429, `guess ${i}`);
        if (i === 20) {
          assert.deepEqual(res.body, TOO_MANY);
          assert.equal(res.headers['retry-after'], '600');
        }
      }
      assert.equal(app.statements(), statements, '280 refused guesses ran no statement');
    });

    it('a valid key from another address keeps working meanwhile', async () => {
      assert.equal((await country(w.companyA.key, '127.0.0.2')).status, 200);
    });

    it('the guessing address is refused even with a valid key, until its window ends by itself', async () => {
      const res = await country(w.companyA.key);
      assert.deepEqual([res.status, res.headers['retry-after']], [429, '600']);
      app.clock.advance(600_000);
      assert.equal((await country(w.companyA.key)).status, 200);
    });

    it('concurrent guesses: no more than AUTH_FAILURE_MAX of them are looked up', async () => {
      const statements = app.statements();
      const statuses = (
        await Promise.all(Array.from({ length: 60 }, (_, i) => country(`plk_burst_${i}`, '127.0.0.3')))
      ).map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, 20);
      assert.equal(statuses.filter((s) => s === 429).length, 40);
      assert.equal(app.statements() - statements, 20, 'one lookup per counted failure');
    });

    it('a key that authenticates is not counted as a failure', async () => {
      for (let i = 0; i < 19; i++) assert.equal((await country(`plk_almost_${i}`, '127.0.0.4')).status, 401);
      app.clock.advance(10_000); // past the key cache, so each valid request is a lookup again
      for (let i = 0; i < 5; i++) {
        assert.equal((await country(w.companyB.key, '127.0.0.4')).status, 200);
        app.clock.advance(6_000);
      }
      assert.equal((await country('plk_last_guess', '127.0.0.4')).status, 401, 'the twentieth failure');
      assert.equal((await country(w.companyB.key, '127.0.0.4')).status, 429);
    });
  });

  describe(`Locker API: requests are limited per key after authentication (${dialect.name})`, () => {
    let app: LimitsApp;
    let w: LockerWorld;
    before(async () => {
      app = await startLimitsApp(dialect, { rateLimit: { max: 3, windowMs: 60_000 } });
      w = await seedLockerWorld(app.storage.db);
    });
    after(() => app.stop());

    it('the fourth request of one key in a window is 429 with Retry-After', async () => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await app.request('GET', `${BASE}/country`, { token: w.companyA.key }));
      assert.deepEqual(
        answers.map((r) => r.status),
        [200, 200, 200, 429],
      );
      assert.deepEqual(answers[3].body, TOO_MANY);
      assert.equal(answers[3].headers['retry-after'], '60');
    });

    it('made-up keys open no windows: only the keys that authenticated have one', async () => {
      for (let i = 0; i < 4; i++)
        assert.equal((await app.request('GET', `${BASE}/country`, { token: `plk_made_up_${i}` })).status, 401);
      assert.equal(app.deps.limits!.sizes()['locker:key'], 1);
      assert.equal((await app.request('GET', `${BASE}/country`, { token: w.companyB.key })).status, 200);
      assert.equal(app.deps.limits!.sizes()['locker:key'], 2);
    });
  });
}

describe('the failure limits from the environment', () => {
  // cloud/server.ts builds AppConfig and is not this change's to edit: until it passes
  // `authLimits: authLimitsOf(config)`, a running cloud uses the defaults.
  it('AUTH_FAILURE_MAX reaches the running cloud', async () => {
    const cloud = await startTestApp(DIALECTS[0], { env: { AUTH_FAILURE_MAX: '2' } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await cloud.request('GET', `${BASE}/country`, { token: `plk_guess_${i}` })).status);
      assert.deepEqual(statuses, [401, 401, 429]);
    } finally {
      await cloud.stop();
    }
  });
});
