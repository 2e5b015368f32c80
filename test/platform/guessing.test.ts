import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { DIALECTS } from '../helpers/storage.ts';
import { TEST_JWT_SECRET } from '../helpers/cloud.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { startLimitsApp, type LimitsApp } from './limits-harness.ts';

const COUNTRIES = '/api/v1/integrations/logistic-company/countries';
const KEY_LIST = '/api/v1/logistic-company/api-key/list';
const TOO_MANY = {
  statusCode: 429,
  error: 'Too Many Requests',
  code: 'RATE_LIMIT_EXCEEDED',
  message: 'Too Many Requests',
};

for (const dialect of DIALECTS) {
  describe(`Platform API: guessed credentials are refused per address before any lookup (${dialect.name})`, () => {
    let app: LimitsApp;
    let w: PlatformWorld;
    let adminToken: string;
    before(async () => {
      app = await startLimitsApp(dialect, { authLimits: { failureMax: 15, failureWindowMs: 300_000 } });
      w = await seedPlatformWorld(app.storage.db, app.clock.now());
      adminToken = (
        await app.request('POST', '/api/v1/auth/login', {
          body: { email: 'admin@silkroad.example', password: PASSWORD },
        })
      ).body.accessToken;
    });
    after(() => app.stop());

    /** `count` guesses: the statuses, and how many statements the refused ones ran. */
    async function flood(
      count: number,
      guess: (i: number) => Promise<{ status: number; headers: Record<string, unknown>; body: any }>,
    ) {
      const statuses: number[] = [];
      let statementsAtFirst429: number | undefined;
      for (let i = 0; i < count; i++) {
        const statementsBefore = app.statements();
        const res = await guess(i);
        statuses.push(res.status);
        if (res.status === 429 && statementsAtFirst429 === undefined) {
          statementsAtFirst429 = statementsBefore;
          assert.deepEqual(res.body, TOO_MANY);
          assert.equal(res.headers['retry-after'], '300');
        }
      }
      return { statuses, refusedStatements: app.statements() - (statementsAtFirst429 ?? app.statements()) };
    }

    it('x-api-token: 401 UNAUTHORIZED fifteen times, then 429 with Retry-After and no more lookups', async () => {
      const { statuses, refusedStatements } = await flood(200, (i) =>
        app.request('GET', COUNTRIES, { headers: { 'x-api-token': `plp_guess_${i}` } }),
      );
      assert.deepEqual(statuses, [...Array(15).fill(401), ...Array(185).fill(429)]);
      assert.equal(refusedStatements, 0);
    });

    it('Bearer keys count the same way', async () => {
      const { statuses, refusedStatements } = await flood(100, (i) =>
        app.request('GET', COUNTRIES, { token: `plp_guess_${i}`, from: '127.0.0.2' }),
      );
      assert.deepEqual(statuses, [...Array(15).fill(401), ...Array(85).fill(429)]);
      assert.equal(refusedStatements, 0);
    });

    it('user tokens: well-signed tokens of users that do not exist are refused the same way', async () => {
      const token = (i: number) =>
        jwt.sign({ sub: String(900_000 + i), typ: 'access' }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 3600 });
      const { statuses, refusedStatements } = await flood(100, (i) =>
        app.request('GET', KEY_LIST, { token: token(i), from: '127.0.0.3' }),
      );
      assert.deepEqual(statuses, [...Array(15).fill(401), ...Array(85).fill(429)]);
      assert.equal(refusedStatements, 0);
    });

    it('valid credentials from another address keep working meanwhile', async () => {
      assert.equal(
        (await app.request('GET', COUNTRIES, { headers: { 'x-api-token': w.keys.logist.key }, from: '127.0.0.9' }))
          .status,
        200,
      );
      assert.equal((await app.request('GET', KEY_LIST, { token: adminToken, from: '127.0.0.9' })).status, 200);
    });

    it('one count per address for every family: an address that guessed keys cannot sign in either', async () => {
      const res = await app.request('POST', '/api/v1/auth/login', {
        body: { email: 'admin@silkroad.example', password: PASSWORD },
        from: '127.0.0.2',
      });
      assert.deepEqual([res.status, res.body], [429, TOO_MANY]);
    });

    it('the window ends by itself', async () => {
      app.clock.advance(300_000);
      assert.equal(
        (await app.request('GET', COUNTRIES, { headers: { 'x-api-token': w.keys.logist.key } })).status,
        200,
      );
    });
  });

  describe(`Platform API: requests are limited per key and per user after authentication (${dialect.name})`, () => {
    let app: LimitsApp;
    let w: PlatformWorld;
    before(async () => {
      app = await startLimitsApp(dialect, { rateLimit: { max: 3, windowMs: 60_000 } });
      w = await seedPlatformWorld(app.storage.db, app.clock.now());
    });
    after(() => app.stop());

    it('the fourth request of one key in a window is 429 with Retry-After', async () => {
      const answers = [];
      for (let i = 0; i < 4; i++)
        answers.push(await app.request('GET', COUNTRIES, { headers: { 'x-api-token': w.keys.logist.key } }));
      assert.deepEqual(
        answers.map((r) => r.status),
        [200, 200, 200, 429],
      );
      assert.deepEqual(answers[3].body, TOO_MANY);
      assert.equal(answers[3].headers['retry-after'], '60');
    });

    it('made-up keys open no windows', async () => {
      for (let i = 0; i < 4; i++)
        assert.equal(
          (await app.request('GET', COUNTRIES, { headers: { 'x-api-token': `plp_made_up_${i}` } })).status,
          401,
        );
      assert.equal(app.deps.limits!.sizes()['platform:key'], 1);
    });

    it('a user is counted by who they are, not by the token string', async () => {
      const tokens = [];
      for (let i = 0; i < 2; i++) {
        tokens.push(
          (
            await app.request('POST', '/api/v1/auth/login', {
              body: { email: 'admin@silkroad.example', password: PASSWORD },
            })
          ).body.accessToken,
        );
        app.clock.advance(1000); // another iat, another token
      }
      assert.notEqual(tokens[0], tokens[1]);
      const statuses = [];
      for (const token of [...tokens, ...tokens]) statuses.push((await app.request('GET', KEY_LIST, { token })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
    });
  });
}
