/**
 * Issue 16 point 11: the spec's own 5xx answers (502 on the platform's locker access, a missing
 * order included; 500 POSTOMAT_NOT_FOUND on locker order create) were logged at error level with
 * a full stack, so a client probing ids flooded the error log. They are one short info line now;
 * a real fault is still an error with its stack.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedMarketWorld, type MarketWorld } from '../helpers/market-world.ts';
import { createLogger } from '../../cloud/logger.ts';
import { buildApp } from '../../cloud/app.ts';

const MISSING = 'zzzzzzzzzzzzzzzzzzzzzzzz';

for (const dialect of DIALECTS) {
  describe(`how refusals and faults are logged (${dialect.name})`, () => {
    let cloud: TestApp;
    let world: MarketWorld;
    const lines: any[] = [];

    before(async () => {
      cloud = await startTestApp(dialect, {
        logger: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) }),
      });
      world = await seedMarketWorld(cloud);
    });
    after(() => cloud?.stop());

    const requestLines = () => lines.filter((l) => l.msg === 'request refused' || l.msg === 'request failed');

    it("logs the spec's 502s and 500s for missing things as one info line each, without a stack", async () => {
      lines.length = 0;
      const market = { 'x-api-token': world.keys.market };
      const probes = [
        await cloud.request('GET', `/api/v1/integrations/postomat/order/${MISSING}`, { headers: market }),
        await cloud.request('GET', `/api/v1/integrations/postomat/order/${MISSING}/up-code`, { headers: market }),
        await cloud.request('GET', `/api/v1/integrations/postomat/${MISSING}`, { headers: market }),
        await cloud.request('POST', '/api/v1/integrations/postomat/order/create', {
          headers: market,
          body: { toUserPhone: '+996700000001', postomatId: MISSING, weight: 1, days: 1 },
        }),
        await cloud.request('POST', '/api/v1/integration/company/order/create', {
          token: world.lw.companyA.key,
          body: { toUserPhone: '+996700000001', postomatId: MISSING, sendMessage: false },
        }),
      ];
      assert.deepEqual(
        probes.map((p) => p.status),
        [502, 502, 502, 502, 500],
      );
      assert.deepEqual(
        probes.map((p) => p.body.message),
        ['ORDER_NOT_FOUND', 'ORDER_NOT_FOUND', 'POSTOMAT_NOT_FOUND', 'POSTOMAT_NOT_FOUND', 'POSTOMAT_NOT_FOUND'],
      );
      const logged = requestLines();
      assert.deepEqual(
        logged.map((l) => [l.level, l.status, l.message]),
        [
          ['info', 502, 'ORDER_NOT_FOUND'],
          ['info', 502, 'ORDER_NOT_FOUND'],
          ['info', 502, 'POSTOMAT_NOT_FOUND'],
          ['info', 502, 'POSTOMAT_NOT_FOUND'],
          ['info', 500, 'POSTOMAT_NOT_FOUND'],
        ],
      );
      assert.ok(
        logged.every((l) => l.err === undefined && !JSON.stringify(l).includes('    at ')),
        'no stack',
      );
      assert.equal(lines.filter((l) => l.level === 'error').length, 0);
    });

    it('logs a real fault at error level with its stack', async () => {
      lines.length = 0;
      const app = buildApp(cloud.deps, [
        (a) =>
          a.get('/fault', () => {
            throw new TypeError('boom');
          }),
      ]);
      const server = http.createServer(app).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fault`);
        assert.equal(res.status, 500);
        const { requestId, ...body } = await res.json();
        assert.deepEqual(body, {
          statusCode: 500,
          error: 'Internal Server Error',
          message: 'Internal Server Error',
          code: 'INTERNAL_SERVER_ERROR',
        });
        assert.equal(requestId, res.headers.get('x-request-id'));
      } finally {
        server.close();
      }
      const [line] = requestLines();
      assert.equal(line.level, 'error');
      assert.equal(line.err.message, 'boom');
      assert.match(line.err.stack, /TypeError: boom\n\s+at /);
    });
  });
}
