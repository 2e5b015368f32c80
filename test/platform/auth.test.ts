import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { DIALECTS } from '../helpers/storage.ts';
import { TEST_JWT_SECRET } from '../helpers/cloud.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { ManualClock } from '../../shared/clock.ts';
import { updatePlatformUser } from '../../cloud/services/platform/users.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

for (const dialect of DIALECTS) {
  describe(`platform sign-in and authentication (${dialect.name})`, () => {
    let cloud: TestApp;
    let w: PlatformWorld;
    const clock = new ManualClock('2026-03-01T09:00:00.000Z');
    before(async () => {
      cloud = await startTestApp(dialect, { clock });
      w = await seedPlatformWorld(cloud.storage.db, clock.now());
    });
    after(() => cloud.stop());

    const signIn = (email: string, password = PASSWORD) =>
      cloud.request('POST', '/api/v1/auth/login', { body: { email, password } });
    const keyList = (token?: string, headers?: Record<string, string>) =>
      cloud.request('GET', '/api/v1/logistic-company/api-key/list', { token, headers });

    describe('POST /api/v1/auth/login', () => {
      it('answers an access and a refresh token; the email is trimmed and lower-cased', async () => {
        const res = await signIn('  ADMIN@silkroad.EXAMPLE ');
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ['accessToken', 'refreshToken']);
        const claims = jwt.verify(res.body.accessToken, TEST_JWT_SECRET, {
          clockTimestamp: clock.now().getTime() / 1000,
        }) as jwt.JwtPayload;
        assert.equal(claims.exp! - claims.iat!, 3600, 'access token lives one hour');
        const r = jwt.decode(res.body.refreshToken) as jwt.JwtPayload;
        assert.equal(r.exp! - r.iat!, 10 * 24 * 3600, 'refresh token lives ten days');
        assert.equal((await keyList(res.body.accessToken)).status, 200);
      });

      it('404 USER_NOT_FOUND for an unknown email', async () => {
        const res = await signIn('nobody@silkroad.example');
        assert.deepEqual(res.body, { statusCode: 404, error: 'Not Found', message: 'USER_NOT_FOUND' });
      });

      it('406 PASSWORD_NOT_CORRECT for a wrong password', async () => {
        const res = await signIn('admin@silkroad.example', 'wrong password');
        assert.deepEqual(res.body, { statusCode: 406, error: 'Not Acceptable', message: 'PASSWORD_NOT_CORRECT' });
      });

      it('400 validation, comma-separated: bad email format, short password, missing fields', async () => {
        let res = await cloud.request('POST', '/api/v1/auth/login', {
          body: { email: 'not-an-email', password: 'short' },
        });
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 'FST_ERR_VALIDATION');
        assert.equal(
          res.body.message,
          'body/email must match format "email", body/password must NOT have fewer than 8 characters',
        );
        res = await cloud.request('POST', '/api/v1/auth/login', { body: {} });
        assert.equal(
          res.body.message,
          "body must have required property 'email', body must have required property 'password'",
        );
      });

      it('415 for credentials sent as a form rather than JSON', async () => {
        const res = await cloud.request('POST', '/api/v1/auth/login', {
          rawBody: JSON.stringify({ email: 'admin@silkroad.example', password: PASSWORD }),
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(res.status, 415);
        assert.equal(res.body.code, 'FST_ERR_CTP_INVALID_MEDIA_TYPE');
        assert.equal(res.body.message, 'Unsupported Media Type: text/plain');
      });

      it('a switched-off user cannot sign in', async () => {
        await updatePlatformUser(cloud.storage.db, w.storeKeeper.id, { isActive: false }, new Date());
        assert.equal((await signIn('keeper@storage.example')).body.message, 'USER_NOT_FOUND');
        await updatePlatformUser(cloud.storage.db, w.storeKeeper.id, { isActive: true }, new Date());
      });
    });

    describe('POST /api/v1/auth/refresh', () => {
      it('returns a new pair, and a refresh token works only once', async () => {
        const first = (await signIn('admin@silkroad.example')).body;
        clock.advance(1000);
        const res = await cloud.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } });
        assert.equal(res.status, 200);
        assert.notEqual(res.body.refreshToken, first.refreshToken);
        assert.equal((await keyList(res.body.accessToken)).status, 200);
        const again = await cloud.request('POST', '/api/v1/auth/refresh', {
          body: { refreshToken: first.refreshToken },
        });
        assert.deepEqual(again.body, { statusCode: 400, error: 'Bad Request', message: 'UNAUTHORIZED' });
        assert.equal(
          (await cloud.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: res.body.refreshToken } }))
            .status,
          200,
        );
      });

      it('two refreshes with one token at the same moment: one pair', async () => {
        const { refreshToken } = (await signIn('admin@silkroad.example')).body;
        const both = await Promise.all(
          [1, 2].map(() => cloud.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } })),
        );
        assert.deepEqual(both.map((r) => r.status).sort(), [200, 400]);
      });

      it('400 UNAUTHORIZED for a garbled token, an access token, and past its ten days', async () => {
        const pair = (await signIn('admin@silkroad.example')).body;
        for (const refreshToken of [
          'garbage',
          pair.accessToken,
          jwt.sign({ sub: '1', typ: 'refresh', jti: 'x' }, 'another secret'),
        ]) {
          const res = await cloud.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } });
          assert.deepEqual([res.status, res.body.message], [400, 'UNAUTHORIZED'], refreshToken.slice(0, 12));
        }
        clock.advance(10 * DAY + 1000);
        const late = await cloud.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: pair.refreshToken } });
        assert.deepEqual([late.status, late.body.message], [400, 'UNAUTHORIZED']);
      });

      it('400 USER_NOT_FOUND when the user is gone', async () => {
        const { refreshToken } = (await signIn('keeper@storage.example')).body;
        await cloud.storage.db
          .updateTable('platform_user')
          .set({ isActive: 0 })
          .where('id', '=', w.storeKeeper.id)
          .execute();
        const res = await cloud.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } });
        assert.deepEqual(res.body, { statusCode: 400, error: 'Bad Request', message: 'USER_NOT_FOUND' });
        await cloud.storage.db
          .updateTable('platform_user')
          .set({ isActive: 1 })
          .where('id', '=', w.storeKeeper.id)
          .execute();
      });

      it('400 validation without refreshToken', async () => {
        const res = await cloud.request('POST', '/api/v1/auth/refresh', { body: {} });
        assert.deepEqual(
          [res.status, res.body.code, res.body.message],
          [400, 'FST_ERR_VALIDATION', "body must have required property 'refreshToken'"],
        );
      });
    });

    describe('user-token endpoints', () => {
      it('401 TOKEN_NOT_VALID without a Bearer header or with an empty token', async () => {
        for (const headers of [{}, { authorization: 'Bearer ' }, { authorization: 'Basic abc' }] as Array<
          Record<string, string>
        >) {
          const res = await keyList(undefined, headers);
          assert.deepEqual(
            res.body,
            { statusCode: 401, error: 'Unauthorized', message: 'TOKEN_NOT_VALID' },
            JSON.stringify(headers),
          );
        }
      });

      it('401 UNAUTHORIZED for a bad signature, a refresh token, and an access token past its hour', async () => {
        const pair = (await signIn('admin@silkroad.example')).body;
        const forged = jwt.sign({ sub: String(w.admin.id), typ: 'access' }, 'not our secret');
        for (const token of ['garbage', forged, pair.refreshToken]) {
          assert.deepEqual((await keyList(token)).body, {
            statusCode: 401,
            error: 'Unauthorized',
            message: 'UNAUTHORIZED',
          });
        }
        clock.advance(HOUR - 1000);
        assert.equal((await keyList(pair.accessToken)).status, 200, 'still inside its hour');
        clock.advance(2000);
        assert.equal((await keyList(pair.accessToken)).body.message, 'UNAUTHORIZED');
      });

      it('403 ONLY_FOR_ADMIN for a user who is not an administrator', async () => {
        const { accessToken } = (await signIn('clerk@silkroad.example')).body;
        assert.deepEqual((await keyList(accessToken)).body, {
          statusCode: 403,
          error: 'Forbidden',
          message: 'ONLY_FOR_ADMIN',
        });
      });

      it('403 FORBIDDEN for webhooks of a company that is not a logistics company', async () => {
        await updatePlatformUser(cloud.storage.db, w.storeKeeper.id, { role: 'ADMIN' }, new Date());
        const { accessToken } = (await signIn('keeper@storage.example')).body;
        assert.equal((await keyList(accessToken)).status, 200, 'any company administrator manages keys');
        const res = await cloud.request('GET', '/api/v1/logistic-company/webhook/list', { token: accessToken });
        assert.deepEqual(res.body, { statusCode: 403, error: 'Forbidden', message: 'FORBIDDEN' });
      });

      it("a switched-off user's access token stops working at once", async () => {
        const { accessToken } = (await signIn('keeper@storage.example')).body;
        await updatePlatformUser(cloud.storage.db, w.storeKeeper.id, { isActive: false }, new Date());
        assert.equal((await keyList(accessToken)).body.message, 'UNAUTHORIZED');
        await updatePlatformUser(cloud.storage.db, w.storeKeeper.id, { isActive: true }, new Date());
      });
    });

    describe('company API key on /api/v1/integrations/*', () => {
      // No integration route is needed to see authentication pass: a known key reaches routing (404).
      const call = (headers: Record<string, string>) =>
        cloud.request('GET', '/api/v1/integrations/no-such-route', { headers });

      it('403 TOKEN_NOT_VALID with no key in either header, or an empty one', async () => {
        for (const headers of [
          {},
          { 'x-api-token': '' },
          { authorization: 'Bearer ' },
          { 'x-api-token': '  ' },
        ] as Array<Record<string, string>>) {
          assert.deepEqual(
            (await call(headers)).body,
            { statusCode: 403, error: 'Forbidden', message: 'TOKEN_NOT_VALID' },
            JSON.stringify(headers),
          );
        }
      });

      it('401 UNAUTHORIZED for an unknown key, in either header', async () => {
        for (const headers of [{ 'x-api-token': 'plp_unknown' }, { authorization: 'Bearer plp_unknown' }] as Array<
          Record<string, string>
        >) {
          assert.deepEqual((await call(headers)).body, {
            statusCode: 401,
            error: 'Unauthorized',
            message: 'UNAUTHORIZED',
          });
        }
      });

      it('a known key passes in x-api-token or, without it, in Authorization: Bearer; x-api-token wins', async () => {
        assert.equal((await call({ 'x-api-token': w.keys.logist.key })).status, 404);
        assert.equal((await call({ authorization: `Bearer ${w.keys.logist.key}` })).status, 404);
        assert.equal(
          (await call({ 'x-api-token': 'plp_unknown', authorization: `Bearer ${w.keys.logist.key}` })).status,
          401,
        );
      });

      it('a user token is not an API key', async () => {
        const { accessToken } = (await signIn('admin@silkroad.example')).body;
        assert.equal((await call({ authorization: `Bearer ${accessToken}` })).status, 401);
      });
    });
  });
}
