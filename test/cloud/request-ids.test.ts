/**
 * Request ids (cloud/http/request-id.ts): every answer carries `X-Request-Id`, the caller's own
 * when it is a short plain token, a fresh one otherwise; error bodies repeat it as `requestId`;
 * every log line the request causes names it, and lines of later background work do not.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { createLogger } from '../../cloud/logger.ts';
import { REQUEST_ID_MAX, requestIdFrom } from '../../cloud/http/request-id.ts';

const BASE = '/api/v1/integration/company';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it('keeps a short plain token and replaces anything else with a UUID', () => {
    assert.equal(requestIdFrom('lb-7f3a.42:x_Y'), 'lb-7f3a.42:x_Y');
    assert.equal(requestIdFrom(['first', 'second']), 'first');
    for (const bad of [undefined, '', 'a'.repeat(REQUEST_ID_MAX + 1), 'has space', 'line\nbreak', '{"json":1}', 'ü']) {
      assert.match(requestIdFrom(bad), UUID, JSON.stringify(bad));
    }
    assert.equal(requestIdFrom('a'.repeat(REQUEST_ID_MAX)), 'a'.repeat(REQUEST_ID_MAX));
  });
});

for (const dialect of DIALECTS) {
  describe(`request ids (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: LockerWorld;
    const lines: Array<Record<string, unknown>> = [];
    before(async () => {
      const logger = createLogger({ level: 'debug', write: (l) => void lines.push(JSON.parse(l)) });
      cloud = await startTestApp(dialect, { logger });
      w = await seedLockerWorld(cloud.storage.db);
    });
    after(() => cloud.stop());

    it("answers with the caller's id, and a fresh one when none or an unacceptable one is given", async () => {
      const own = await cloud.request('GET', '/health', { headers: { 'x-request-id': 'trace-0001' } });
      assert.equal(own.headers.get('x-request-id'), 'trace-0001');
      const none = await cloud.request('GET', '/health');
      assert.match(none.headers.get('x-request-id')!, UUID);
      const forged = await cloud.request('GET', '/health', { headers: { 'x-request-id': 'x"}, "level":"error' } });
      assert.match(forged.headers.get('x-request-id')!, UUID);
      const again = await cloud.request('GET', '/health');
      assert.notEqual(again.headers.get('x-request-id'), none.headers.get('x-request-id'));
    });

    it("puts the id in error bodies beside the spec's fields", async () => {
      const missing = await cloud.request('GET', `${BASE}/order/${'x'.repeat(24)}`, {
        token: w.companyB.key,
        headers: { 'x-request-id': 'err-404' },
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.requestId, 'err-404');
      assert.deepEqual(missing.body, { statusCode: 404, error: 'Not Found', message: 'ORDER_NOT_FOUND' });
      const invalid = await cloud.request('POST', `${BASE}/order/create`, { token: w.companyB.key, body: {} });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.requestId, invalid.headers.get('x-request-id'));
      assert.equal(invalid.body.code, 'FST_ERR_VALIDATION');
      const unrouted = await cloud.request('GET', '/no/such/route', { headers: { 'x-request-id': 'err-route' } });
      assert.equal(unrouted.status, 404);
      assert.equal(unrouted.requestId, 'err-route');
      const unauthorized = await cloud.request('GET', `${BASE}/order/list?page=1&pageSize=1`, {
        token: 'wrong',
        headers: { 'x-request-id': 'err-401' },
      });
      assert.equal(unauthorized.status, 401);
      assert.equal(unauthorized.requestId, 'err-401');
    });

    it("names the id on every log line the request causes, and no other request's", async () => {
      // A refusal logged by the error handler, and an order whose commit wakes the publisher.
      lines.length = 0;
      const created = await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyB.key,
        headers: { 'x-request-id': 'order-create-1' },
        body: { toUserPhone: '+996555000111', postomatId: w.near.id, sendMessage: false },
      });
      assert.equal(created.status, 200, created.text);
      const unknownLocker = await cloud.request('POST', `${BASE}/order/create`, {
        token: w.companyB.key,
        headers: { 'x-request-id': 'bad-locker-1' },
        body: { toUserPhone: '+996555000111', postomatId: 'z'.repeat(24), sendMessage: false },
      });
      assert.equal(unknownLocker.status, 500);
      const refused = lines.filter((l) => l.msg === 'request refused' || l.msg === 'request failed');
      assert.ok(refused.length >= 1, JSON.stringify(lines));
      for (const l of refused) assert.equal(l.requestId, 'bad-locker-1', JSON.stringify(l));
      assert.ok(
        !lines.some((l) => l.requestId === 'order-create-1' && l.msg === 'request refused'),
        'a line names its own request only',
      );
    });
  });
}
