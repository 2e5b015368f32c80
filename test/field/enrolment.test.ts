import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runOperator } from '../../cloud/operator/cli.ts';
import { AgentCredentials } from '../../cloud/sync/credentials.ts';
import { ManualClock } from '../../shared/clock.ts';
import { ENROLMENT_PATH } from '../../shared/enrolment.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { startPtyBus, type PtyBus } from './pty-bus.ts';
import { runAgentCli } from './agent-cli.ts';

for (const dialect of DIALECTS) {
  describe(`enrolment with a one-time code (${dialect.name})`, () => {
    let cloud: TestCloud;
    let bus: PtyBus;
    let lockerId: string;
    const clock = new ManualClock(new Date());

    const operator = async (...argv: string[]) => {
      const r = await runOperator([...argv, '--json'], {}, cloud.storage);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const enroll = (code: string, config: string, ...extra: string[]) =>
      runAgentCli([
        'enroll',
        '--cloud',
        cloud.url,
        '--code',
        code,
        '--config',
        config,
        '--device',
        bus.device,
        '--data-dir',
        join(bus.dir, 'data'),
        ...extra,
      ]);

    before(async () => {
      cloud = await startTestCloud(dialect, {
        clock,
        env: { AGENT_MQTT_URL: 'mqtts://broker.example.com:8883', AUTH_FAILURE_MAX: '50' },
      });
      bus = await startPtyBus([0, 1]);
      lockerId = (await operator('locker', 'create', '--title', 'Field 1', '--cells', '1:S:0:1,2:M:0:2,3:L:1:1')).id;
    });
    after(async () => {
      await bus.close();
      await cloud.stop();
    });

    it('writes an owner-only config with the locker id, broker, own credentials and cell map, and checks the boards', async () => {
      const { code } = await operator('locker', 'enrol-code', '--locker', lockerId);
      assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      const file = join(bus.dir, 'good.json');
      const res = await enroll(code.toLowerCase(), file);
      assert.equal(res.code, 0, res.stdout + res.stderr);
      assert.match(res.stdout, /boards answering: 0, 1/);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const config = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(config.lockerId, lockerId);
      assert.deepEqual(config.boards, [0, 1]);
      assert.deepEqual(config.cells, [
        { cellId: '1', board: 0, lock: 1, size: 'S' },
        { cellId: '2', board: 0, lock: 2, size: 'M' },
        { cellId: '3', board: 1, lock: 1, size: 'L' },
      ]);
      assert.equal(config.cloud.mqttUrl, 'mqtts://broker.example.com:8883');
      assert.equal(config.cloud.username, lockerId);
      assert.ok(
        await new AgentCredentials(cloud.storage.db).verify(lockerId, Buffer.from(config.cloud.password)),
        'the broker accepts the password',
      );
      assert.doesNotMatch(res.stdout, new RegExp(config.cloud.password), 'the password is not printed');

      // Used: a second exchange of the same code is refused and changes nothing.
      const before = readFileSync(file, 'utf8');
      const again = await enroll(code, file, '--force');
      assert.equal(again.code, 1);
      assert.match(again.stderr, /used already.*nothing was changed/);
      assert.equal(readFileSync(file, 'utf8'), before);
      assert.ok(
        await new AgentCredentials(cloud.storage.db).verify(lockerId, Buffer.from(config.cloud.password)),
        'the password still works',
      );
    });

    it('refuses an expired code and writes nothing', async () => {
      const { code } = await operator('locker', 'enrol-code', '--locker', lockerId, '--minutes', '1');
      clock.advance(2 * 60_000);
      const file = join(bus.dir, 'expired.json');
      const res = await enroll(code, file);
      assert.equal(res.code, 1);
      assert.match(res.stderr, /expired: ask the operator for a new one; nothing was changed/);
      assert.equal(existsSync(file), false);
    });

    it('refuses a wrong code and writes nothing', async () => {
      const file = join(bus.dir, 'wrong.json');
      const res = await enroll('ABCD-EFGH', file);
      assert.equal(res.code, 1);
      assert.match(res.stderr, /no such enrolment code/);
      assert.equal(existsSync(file), false);
    });

    it('refuses a code of the wrong shape before asking the cloud', async () => {
      const res = await enroll('12', join(bus.dir, 'short.json'));
      assert.equal(res.code, 1);
      assert.match(res.stderr, /8 letters and digits/);
    });

    it('keeps an existing config and the code unused without --force', async () => {
      const { code } = await operator('locker', 'enrol-code', '--locker', lockerId);
      const file = join(bus.dir, 'good.json');
      const res = await enroll(code, file);
      assert.equal(res.code, 1);
      assert.match(res.stderr, /exists already: nothing was changed and the code is still valid/);
      const ok = await enroll(code, file, '--force');
      assert.equal(ok.code, 0, ok.stderr);
    });

    it('refuses malformed bodies with a validation error and writes nothing', async () => {
      const count = async () =>
        (
          await cloud.storage.db
            .selectFrom('locker_enrolment')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const before = await count();
      for (const body of [
        {},
        { code: 12345678 },
        { code: 'A'.repeat(40) },
        { code: 'ABCD-EFG\u0000' },
        { code: 'ABCD-EFGH', extra: 1 },
        [],
      ]) {
        const res = await cloud.request('POST', ENROLMENT_PATH, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'FST_ERR_VALIDATION');
      }
      assert.equal((await cloud.request('POST', ENROLMENT_PATH, { rawBody: '{"code":' })).status, 400);
      assert.equal(await count(), before);
    });

    it('counts failed codes per address like the other open doors (429 once used up)', async () => {
      const limited = await startTestCloud(dialect, { env: { AUTH_FAILURE_MAX: '2' } });
      try {
        for (let i = 0; i < 2; i++)
          assert.equal((await limited.request('POST', ENROLMENT_PATH, { body: { code: 'ZZZZ-ZZZZ' } })).status, 404);
        const third = await limited.request('POST', ENROLMENT_PATH, { body: { code: 'ZZZZ-ZZZZ' } });
        assert.equal(third.status, 429);
      } finally {
        await limited.stop();
      }
    });
  });
}
