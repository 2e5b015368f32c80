import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { seedPlatformWorld, PASSWORD } from '../helpers/platform-world.ts';
import { startLimitsApp, type LimitsApp } from './limits-harness.ts';

const TOO_MANY = {
  statusCode: 429,
  error: 'Too Many Requests',
  code: 'RATE_LIMIT_EXCEEDED',
  message: 'Too Many Requests',
};
const MINUTE = 60_000;

for (const dialect of DIALECTS) {
  describe(`POST /api/v1/auth/login and /refresh: failures are limited per account and per address (${dialect.name})`, () => {
    let app: LimitsApp;
    before(async () => {
      app = await startLimitsApp(dialect, {
        authLimits: {
          failureMax: 5,
          failureWindowMs: 10 * MINUTE,
          loginFailureMax: 3,
          loginFailureWindowMs: 15 * MINUTE,
        },
      });
      await seedPlatformWorld(app.storage.db, app.clock.now());
    });
    after(() => app.stop());

    const signIn = (email: string, password: string, from: string) =>
      app.request('POST', '/api/v1/auth/login', { body: { email, password }, from });

    describe('per account', () => {
      it('wrong passwords from many addresses lock the account: then even the right password is 429 with Retry-After', async () => {
        for (const from of ['127.0.0.11', '127.0.0.12', '127.0.0.13']) {
          assert.equal((await signIn('admin@silkroad.example', 'wrong password', from)).status, 406, from);
        }
        const statements = app.statements();
        const res = await signIn(' Admin@SilkRoad.example', PASSWORD, '127.0.0.14');
        assert.deepEqual([res.status, res.body, res.headers['retry-after']], [429, TOO_MANY, '900']);
        assert.equal(app.statements(), statements, 'the locked account was not looked up');
      });

      it('other accounts sign in meanwhile, from the same addresses', async () => {
        assert.equal((await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.14')).status, 200);
      });

      it('the lock ends by itself when its window has passed', async () => {
        app.clock.advance(10 * MINUTE);
        assert.equal(
          (await signIn('admin@silkroad.example', PASSWORD, '127.0.0.15')).status,
          429,
          'still inside the 15 minutes',
        );
        app.clock.advance(5 * MINUTE);
        assert.equal((await signIn('admin@silkroad.example', PASSWORD, '127.0.0.15')).status, 200);
      });
    });

    describe('per address', () => {
      it('an address trying many accounts gets 429 after AUTH_FAILURE_MAX failures, for any account', async () => {
        const statuses = [];
        for (let i = 0; i < 5; i++)
          statuses.push((await signIn(`nobody${i}@silkroad.example`, PASSWORD, '127.0.0.20')).status);
        assert.deepEqual(statuses, [404, 404, 404, 404, 404]);
        const res = await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.20');
        assert.deepEqual([res.status, res.body, res.headers['retry-after']], [429, TOO_MANY, '600']);
        assert.equal(
          (await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.21')).status,
          200,
          'another address is not affected',
        );
      });

      it('failed refreshes count as failures of the address', async () => {
        const statuses = [];
        for (let i = 0; i < 5; i++)
          statuses.push(
            (
              await app.request('POST', '/api/v1/auth/refresh', {
                body: { refreshToken: `not-a-token-${i}` },
                from: '127.0.0.30',
              })
            ).status,
          );
        assert.deepEqual(statuses, [400, 400, 400, 400, 400]);
        const refreshAgain = await app.request('POST', '/api/v1/auth/refresh', {
          body: { refreshToken: 'x' },
          from: '127.0.0.30',
        });
        assert.deepEqual([refreshAgain.status, refreshAgain.body], [429, TOO_MANY]);
        assert.equal((await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.30')).status, 429);
      });

      it('a good refresh is not counted', async () => {
        const pair = (await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.31')).body;
        let token = pair.refreshToken;
        for (let i = 0; i < 6; i++) {
          const res = await app.request('POST', '/api/v1/auth/refresh', {
            body: { refreshToken: token },
            from: '127.0.0.31',
          });
          assert.equal(res.status, 200, `refresh ${i}`);
          token = res.body.refreshToken;
        }
      });

      it('the address window ends by itself', async () => {
        app.clock.advance(10 * MINUTE);
        assert.equal((await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.20')).status, 200);
        assert.equal((await signIn('clerk@silkroad.example', PASSWORD, '127.0.0.30')).status, 200);
      });
    });
  });
}
