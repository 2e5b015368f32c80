import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { ManualClock } from '../../shared/clock.ts';

const BASE = '/api/v1/integration/company';

describe('rate limit', () => {
  let cloud: TestApp;
  let w: LockerWorld;
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  before(async () => {
    cloud = await startTestApp(DIALECTS[0], { clock, env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
    w = await seedLockerWorld(cloud.storage.db);
  });
  after(() => cloud.stop());

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After once a key used up its window', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await cloud.request('GET', `${BASE}/country`, { token: w.companyA.key })).status);
    assert.deepEqual(statuses, [200, 200, 200]);
    clock.advance(15_000);
    const limited = await cloud.request('GET', `${BASE}/country`, { token: w.companyA.key });
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body, {
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Too Many Requests',
      code: 'RATE_LIMIT_EXCEEDED',
    });
    assert.equal(limited.headers.get('retry-after'), '45');
  });

  it('counts each API key on its own', async () => {
    assert.equal((await cloud.request('GET', `${BASE}/country`, { token: w.companyB.key })).status, 200);
  });

  it('opens a new window when the old one has passed', async () => {
    clock.advance(45_000);
    assert.equal((await cloud.request('GET', `${BASE}/country`, { token: w.companyA.key })).status, 200);
  });

  it('counts a request once, on a route or on a path no route serves, in the same window', async () => {
    clock.advance(60_000);
    const statuses = [];
    statuses.push((await cloud.request('GET', `${BASE}/country`, { token: w.companyB.key })).status);
    statuses.push((await cloud.request('GET', `${BASE}/no-such-endpoint`, { token: w.companyB.key })).status);
    statuses.push((await cloud.request('GET', `${BASE}/country`, { token: w.companyB.key })).status);
    statuses.push((await cloud.request('GET', `${BASE}/no-such-endpoint`, { token: w.companyB.key })).status);
    assert.deepEqual(statuses, [200, 404, 200, 429]);
  });

  it('limits public endpoints per client address', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await cloud.request('GET', '/api/v1/public/postomat/ZETA01')).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });
});
