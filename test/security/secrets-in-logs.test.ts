/**
 * Secrets scan of one full order flow: an order created over HTTP with an SMS, placed and
 * collected through a simulated locker whose real agent talks MQTT, webhooks with an api key,
 * platform sign-in and refresh, a new platform key, failed guesses. The cloud logs at debug
 * level; nothing it or the agent logged may contain a secret of the flow.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { TEST_JWT_SECRET } from '../helpers/cloud.ts';
import { startReceiver, eventually, type Receiver } from '../helpers/receiver.ts';
import { seedPlatformWorld, PASSWORD } from '../helpers/platform-world.ts';
import { typeAndWaitOpen } from '../helpers/sim-harness.ts';
import { assertNoSecrets, findSecrets, LogCapture, Secrets } from '../helpers/secrets-scan.ts';
import {
  BASE,
  codesOf,
  startSyncWorld,
  until,
  untilAgent,
  untilOnline,
  useCell,
  type SyncWorld,
} from '../sync/harness.ts';
import { untilStatus } from '../sync/scenarios.ts';
import { setLockerAccess } from '../../cloud/services/platform/companies.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';

describe('the secrets scan itself', () => {
  const lines = (...texts: string[]) => texts.map((text) => ({ source: 'test', text }));
  it('finds a long secret anywhere and a code as a whole number inside a string, naming only its kind', () => {
    const secrets = new Secrets().add('API key', 'plk_abcdefgh12345678').add('UP code', '4821');
    const hits = findSecrets(
      lines(
        '{"time":"2025-01-01T00:00:00.000Z","msg":"request","key":"Bearer plk_abcdefgh12345678"}',
        '{"time":"2025-01-01T00:00:00.000Z","msg":"typed code 4821"}',
        '[agent] code 4821 accepted',
      ),
      secrets,
    );
    assert.deepEqual(
      hits.map((h) => h.kind),
      ['API key', 'UP code', 'UP code'],
    );
    assert.ok(hits.every((h) => !h.line.includes('plk_abcdefgh12345678') && !/(?<!\d)4821(?!\d)/.test(h.line)));
  });
  it('does not count digits of a timestamp, a number field, a longer number or a random id as a code', () => {
    const secrets = new Secrets().add('DOWN code', '2025').add('UP code', '1234').add('UP code', '6434');
    assert.deepEqual(
      findSecrets(
        lines(
          '{"time":"2025-11-25T16:08:34.123Z","latencyMs":1234,"msg":"sent","id":"o-12345"}',
          '{"msg":"locker event applied","orderId":"kzi1jj0rba9e4rcnn6434ai7"}',
          '[agent] cell 1 open (PLACE order kzi1jj0rba9e4rcnn6434ai7)',
        ),
        secrets,
      ),
      [],
    );
    // Beside punctuation it is the code all the same.
    assert.equal(findSecrets(lines('[agent] code=6434, order (6434)'), secrets).length, 1);
  });
});

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] no secret of a full order flow reaches the logs`, () => {
    const logs = new LogCapture();
    const secrets = new Secrets();
    let w: SyncWorld;
    let hooks: Receiver;
    let sim: SimLocker;
    before(async () => {
      hooks = await startReceiver();
      w = await startSyncWorld(dialect, { logger: logs.logger('cloud'), env: { EVENT_TIMEOUT_MS: '1000' } });
      secrets
        .add('locker API key', w.company.key)
        .add('JWT secret', TEST_JWT_SECRET)
        .add('platform password', PASSWORD);
    });
    after(async () => {
      await w.close();
      await hooks.close();
    });

    it('runs the flow, with its failures', async () => {
      const platform = await seedPlatformWorld(w.db);
      for (const k of Object.values(platform.keys)) secrets.add('platform API key', k.key);
      await setLockerAccess(w.db, platform.logist.id, { lockerCompanyId: w.company.id, enabled: true }, new Date());
      const request = w.cloud.request;

      // Platform: sign in, refresh, a key, webhooks with an api key; and guesses that fail.
      const login = await request('POST', '/api/v1/auth/login', {
        body: { email: 'admin@silkroad.example', password: PASSWORD },
      });
      assert.equal(login.status, 200);
      secrets.add('access token', login.body.accessToken).add('refresh token', login.body.refreshToken);
      const refreshed = await request('POST', '/api/v1/auth/refresh', {
        body: { refreshToken: login.body.refreshToken },
      });
      assert.equal(refreshed.status, 200);
      secrets.add('access token', refreshed.body.accessToken).add('refresh token', refreshed.body.refreshToken);
      const token = refreshed.body.accessToken;
      const key = await request('POST', '/api/v1/logistic-company/api-key/create', {
        token,
        body: { title: 'scanner' },
      });
      assert.equal(key.status, 200, key.text);
      secrets.add('platform API key', key.body.key);
      for (const [subtype, path] of [
        ['DELIVERED_TO_POSTOMAT', 'placed'],
        ['TRANSFERRED_TO_CLIENT', 'taken'],
      ]) {
        const hook = await request('POST', '/api/v1/logistic-company/webhook/create', {
          token,
          body: { type: 'PARCEL', subtype, url: `${hooks.url}/${path}`, apiKey: `whk-${path}-secret-value` },
        });
        assert.equal(hook.status, 200, hook.text);
        secrets.add('webhook api key', `whk-${path}-secret-value`);
      }
      const guessedPassword = 'guessed-Password-123';
      assert.equal(
        (
          await request('POST', '/api/v1/auth/login', {
            body: { email: 'admin@silkroad.example', password: guessedPassword },
          })
        ).status,
        406,
      );
      const guessedKey = 'plk_guessedKeyThatDoesNotExist000';
      assert.equal((await request('GET', `${BASE}/order/list`, { token: guessedKey })).status, 401);
      assert.equal(
        (
          await request('GET', '/api/v1/integrations/logistic-company/list', {
            headers: { 'x-api-token': 'plp_guessedPlatformKey000000000' },
          })
        ).status,
        401,
      );
      assert.equal(
        (
          await request('POST', '/api/v1/auth/refresh', {
            body: { refreshToken: `${refreshed.body.refreshToken.slice(0, -4)}AAAA` },
          })
        ).status,
        400,
      );
      secrets
        .add('guessed password', guessedPassword)
        .add('guessed key', guessedKey)
        .add('guessed key', 'plp_guessedPlatformKey000000000');

      // The locker: its agent logs in over MQTT with its password.
      const locker = await w.newLocker('Scan');
      secrets.add('agent password', locker.agent.password);
      sim = await w.startAgent(locker);
      await untilOnline(w, locker.id);
      const wrongPassword = await w.newLocker('Wrong');
      secrets.add('agent password', wrongPassword.agent.password);

      // One order: SMS, placement, a wrong code, payment-free pickup.
      const order = await w.createOrder(locker.id, { sendMessage: true });
      const codes = await codesOf(w, order.id);
      secrets.add('DOWN code', codes.DOWN).add('UP code', codes.UP).add('SUBTRACT code', codes.SUBTRACT);
      await untilAgent(sim, order.id, 'order known', (o) => o?.codes.DOWN === codes.DOWN);
      const wrong = ['0000', '9999', '1234', '4321'].find((c) => !Object.values(codes).includes(c))!;
      assert.match((await sim.typeCodeForAnswer(wrong, 5000)) ?? '', /wrong|unknown|not/i);
      secrets.add('typed wrong code', wrong);
      const cell = await typeAndWaitOpen(sim, codes.DOWN);
      await useCell(sim, cell, true);
      await untilStatus(w, order.id, 'DELIVERED');
      assert.equal(await typeAndWaitOpen(sim, codes.UP), cell);
      await useCell(sim, cell, false);
      await untilStatus(w, order.id, 'COMPLETED');
      await eventually(async () => {
        const rows = await w.db
          .selectFrom('outbox_event')
          .select(['kind', 'state'])
          .where('orderId', '=', order.id)
          .execute();
        assert.deepEqual(rows.map((r) => r.kind).sort(), ['COMPANY_NOTIFICATION', 'SMS', 'WEBHOOK', 'WEBHOOK']);
        assert.ok(
          rows.every((r) => r.state === 'SENT' || r.state === 'FAILED'),
          JSON.stringify(rows),
        );
      });
      assert.equal(
        hooks.received.filter((r) => String(r.headers['x-api-key']).startsWith('whk-')).length,
        2,
        'the webhooks went out with their api keys',
      );
      await until('the agent outbox empty', async () =>
        (await sim.agent.pendingEvents()).length === 0 ? true : undefined,
      );
    });

    it('finds none of them in what the cloud and the agent logged', () => {
      for (const line of sim.agent.output) logs.sink('agent')(line);
      // The flow was logged: requests, the SMS line, the outbound events, the agent's door cycles.
      const text = logs.lines.map((l) => l.text).join('\n');
      for (const expected of ['sms (log provider)', 'outbound event', '(PLACE order', 'code **** rejected'])
        assert.ok(text.includes(expected), `logged: ${expected}`);
      assertNoSecrets(logs, secrets, { minLines: 10, sources: ['cloud', 'agent'] });
    });
  });
}
