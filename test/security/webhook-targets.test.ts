/**
 * Webhook and notification targets (issue 16, point 13): a company administrator must not make
 * the cloud send requests to the metadata service, to its own loopback or into the operator's
 * network. Refused when saved (400 validation), and again when sent, after DNS resolution, with
 * the connection going to the address that was checked.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { startReceiver, eventually, type Receiver } from '../helpers/receiver.ts';
import { placeOrder, finishOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { seedPlatformWorld, PASSWORD, type PlatformWorld } from '../helpers/platform-world.ts';
import { setLockerAccess } from '../../cloud/services/platform/companies.ts';
import { createWebhook } from '../../cloud/services/platform/webhooks.ts';
import {
  classifyAddress,
  parseAddress,
  parseAllowList,
  refusedUrl,
  STRICT_TARGETS,
  type TargetPolicy,
} from '../../cloud/domain/outbound-targets.ts';
import { guardedPost } from '../../cloud/events/http-post.ts';
import { loadConfig, targetPolicyOf, ConfigError } from '../../cloud/config.ts';
import { createLogger } from '../../cloud/logger.ts';

const policy = (p: Partial<TargetPolicy> & { allow?: string } = {}): TargetPolicy => {
  const { hosts, ranges } = parseAllowList(p.allow ?? '');
  return { ...STRICT_TARGETS, hosts, ranges, ...p };
};

describe('outbound target rule', () => {
  it('classifies addresses, IPv4 inside IPv6 by the IPv4 address', () => {
    const table: Array<[string, string]> = [
      ['8.8.8.8', 'public'],
      ['172.32.0.1', 'public'],
      ['2606:4700::1111', 'public'],
      ['127.0.0.1', 'loopback'],
      ['127.1.2.3', 'loopback'],
      ['0.0.0.0', 'loopback'],
      ['::1', 'loopback'],
      ['::', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'private'],
      ['fd00::1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['64:ff9b::a9fe:a9fe', 'link-local'],
      ['2002:a9fe:a9fe::1', 'link-local'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:8.8.8.8', 'public'],
      ['224.0.0.1', 'reserved'],
      ['255.255.255.255', 'reserved'],
      ['192.0.2.1', 'reserved'],
      ['ff02::1', 'reserved'],
    ];
    for (const [address, kind] of table) assert.equal(classifyAddress(parseAddress(address)!), kind, address);
    for (const bad of ['1.2.3', '256.1.1.1', '1::2::3', 'example.com', '1.2.3.4.5', '::g'])
      assert.equal(parseAddress(bad), undefined, bad);
  });

  it('reads the host as the URL parser normalises it: decimal, hex, short and bracketed forms, localhost names', () => {
    const cases: Array<[string, string | undefined]> = [
      ['http://169.254.169.254/latest/meta-data/', 'a link-local address (169.254.169.254)'],
      ['http://2130706433/', 'a loopback address (127.0.0.1)'],
      ['http://0x7f.1/', 'a loopback address (127.0.0.1)'],
      ['http://[::ffff:127.0.0.1]:8080/', 'a loopback address (::ffff:7f00:1)'],
      ['http://localhost./', 'a loopback address (localhost)'],
      ['http://api.localhost:3000/', 'a loopback address (api.localhost)'],
      ['http://10.0.0.5/h', 'a private address (10.0.0.5)'],
      ['https://hooks.example.com/placed', undefined],
      ['https://8.8.8.8/x', undefined],
      ['not a url', undefined], // the URL schema refuses it, with its own message
    ];
    for (const [url, why] of cases) assert.equal(refusedUrl(STRICT_TARGETS, url), why, url);
  });

  it('lets the operator allow loopback (development), private ranges, listed ranges and listed names', () => {
    assert.equal(refusedUrl(policy({ allowLoopback: true }), 'http://127.0.0.1:9/'), undefined);
    assert.equal(refusedUrl(policy({ allowLoopback: true }), 'http://10.0.0.1/'), 'a private address (10.0.0.1)');
    assert.equal(refusedUrl(policy({ allowPrivate: true }), 'http://10.0.0.1/'), undefined);
    assert.equal(
      refusedUrl(policy({ allowPrivate: true }), 'http://169.254.169.254/'),
      'a link-local address (169.254.169.254)',
      'private does not include link-local',
    );
    const listed = policy({ allow: '10.1.0.0/16, hooks.internal, fd12::/16' });
    assert.equal(refusedUrl(listed, 'http://10.1.2.3/'), undefined);
    assert.equal(refusedUrl(listed, 'http://10.2.0.1/'), 'a private address (10.2.0.1)');
    assert.equal(refusedUrl(listed, 'http://HOOKS.internal./x'), undefined);
    assert.equal(refusedUrl(listed, 'http://[fd12::9]/'), undefined);
  });

  it('refuses a bad allow-list at start, naming the variable and the entry', () => {
    assert.deepEqual(parseAllowList('10.0.0.0/33, a b, ok.example').errors.length, 2);
    assert.throws(
      () => loadConfig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1,not a host' }),
      (err: Error) => err instanceof ConfigError && /WEBHOOK_ALLOW_HOSTS: "not a host"/.test(err.message),
    );
    const p = targetPolicyOf(
      loadConfig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1,hooks.internal', WEBHOOK_ALLOW_PRIVATE: 'true' }),
    );
    assert.deepEqual(
      [p.allowLoopback, p.allowPrivate, [...p.hosts], p.ranges.length],
      [false, true, ['hooks.internal'], 1],
    );
    assert.equal(targetPolicyOf(loadConfig({ NODE_ENV: 'development' })).allowLoopback, true);
    assert.equal(targetPolicyOf(loadConfig({})).allowLoopback, false);
  });
});

describe('sending: every resolved address checked, the connection pinned to it', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());
  const port = () => new URL(receiver.url).port;

  it('refuses a name when any of its addresses is refused, and contacts nothing', async () => {
    let asked = 0;
    const post = guardedPost(
      policy({ allow: '127.0.0.1' }),
      undefined,
      async () => (
        asked++,
        [
          { address: '127.0.0.1', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ]
      ),
    );
    const before = receiver.received.length;
    const result = await post(`http://hooks.test:${port()}/h`, '{}', {}, 1000);
    assert.equal(result.error, 'target refused: hooks.test resolves to a link-local address (169.254.169.254)');
    assert.equal(result.status, undefined);
    assert.equal(asked, 1);
    assert.equal(receiver.received.length, before);
  });

  it('connects to the address it checked, not to a second answer of the resolver (DNS rebinding)', async () => {
    const answers: LookupAddress[][] = [
      [{ address: '127.0.0.1', family: 4 }],
      [{ address: '169.254.169.254', family: 4 }],
    ];
    let asked = 0;
    const post = guardedPost(policy({ allow: '127.0.0.1' }), undefined, async () => answers[Math.min(asked++, 1)]);
    const result = await post(`http://rebind.test:${port()}/pinned`, '{"a":1}', {}, 2000);
    assert.equal(result.status, 200, result.error ?? '');
    assert.equal(asked, 1, 'resolved once: the connection used the checked address');
    const got = receiver.received.at(-1)!;
    assert.deepEqual([got.path, got.headers.host, got.body], ['/pinned', `rebind.test:${port()}`, '{"a":1}']);
  });

  it('checks literal addresses without asking the resolver', async () => {
    let asked = 0;
    const post = guardedPost(STRICT_TARGETS, undefined, async () => (asked++, []));
    assert.equal(
      (await post('http://169.254.169.254/latest/meta-data/', '{}', {}, 1000)).error,
      'target refused: a link-local address (169.254.169.254)',
    );
    assert.equal(
      (await post(`${receiver.url}/x`, '{}', {}, 1000)).error,
      'target refused: a loopback address (127.0.0.1)',
    );
    assert.equal(asked, 0);
  });

  it('a name that does not resolve is an error, not a refusal', async () => {
    const post = guardedPost(STRICT_TARGETS, undefined, async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    });
    assert.equal((await post('http://nowhere.test/', '{}', {}, 1000)).error, 'getaddrinfo ENOTFOUND nowhere.test');
  });
});

for (const dialect of DIALECTS) {
  describe(`webhook targets in the cloud (${dialect.name})`, () => {
    let cloud: TestCloud;
    let w: PlatformWorld;
    let lw: LockerWorld;
    let admin: string;
    const lines: any[] = [];
    before(async () => {
      // 127.0.0.1 is allowed by the test helper's WEBHOOK_ALLOW_HOSTS, as the demo allows it.
      cloud = await startTestCloud(dialect, {
        env: { EVENT_TIMEOUT_MS: '1000' },
        logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
      });
      lw = await seedLockerWorld(cloud.storage.db);
      w = await seedPlatformWorld(cloud.storage.db);
      await setLockerAccess(
        cloud.storage.db,
        w.logist.id,
        { lockerCompanyId: lw.companyA.id, enabled: true },
        new Date(),
      );
      admin = (
        await cloud.request('POST', '/api/v1/auth/login', {
          body: { email: 'admin@silkroad.example', password: PASSWORD },
        })
      ).body.accessToken;
    });
    after(() => cloud.stop());
    const create = (url: string, subtype = 'DELIVERED_TO_POSTOMAT') =>
      cloud.request('POST', '/api/v1/logistic-company/webhook/create', {
        token: admin,
        body: { type: 'PARCEL', subtype, url },
      });
    const count = async () =>
      Number(
        (
          await cloud.storage.db
            .selectFrom('platform_webhook')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const refusal = (message: string) => ({
      statusCode: 400,
      error: 'Bad Request',
      code: 'FST_ERR_VALIDATION',
      message,
    });

    it('refuses metadata, private and unlisted loopback URLs when saved, with a 400 validation error and no row', async () => {
      const before = await count();
      assert.deepEqual(
        (await create('http://169.254.169.254/latest/meta-data/iam/')).body,
        refusal('body/url must not point to a link-local address (169.254.169.254)'),
      );
      assert.deepEqual(
        (await create('http://10.0.0.5:8080/h')).body,
        refusal('body/url must not point to a private address (10.0.0.5)'),
      );
      assert.deepEqual(
        (await create('http://[fd00::1]/h')).body,
        refusal('body/url must not point to a private address (fd00::1)'),
      );
      // Only 127.0.0.1 itself is listed (test helper): the rest of 127.0.0.0/8 stays refused.
      assert.deepEqual(
        (await create('http://127.0.0.2:8080/h')).body,
        refusal('body/url must not point to a loopback address (127.0.0.2)'),
      );
      assert.equal(await count(), before);
    });

    it('accepts public URLs, names (checked when sent) and the listed loopback address', async () => {
      const made = await create('https://hooks.example.com/placed');
      assert.equal(made.status, 200, made.text);
      assert.equal(made.body.url, 'https://hooks.example.com/placed');
      const listed = await create('http://127.0.0.1:9/taken', 'TRANSFERRED_TO_CLIENT');
      assert.equal(listed.status, 200, listed.text);
    });

    it('refuses a PATCH to a private URL and keeps the stored one', async () => {
      const [hook] = (
        await cloud.request('GET', '/api/v1/logistic-company/webhook/list?pageSize=10', { token: admin })
      ).body.data.filter((h: any) => h.subtype === 'DELIVERED_TO_POSTOMAT');
      const res = await cloud.request('PATCH', `/api/v1/logistic-company/webhook/${hook.id}`, {
        token: admin,
        body: { url: 'http://[::ffff:a9fe:a9fe]/x' },
      });
      assert.deepEqual(res.body, refusal('body/url must not point to a link-local address (::ffff:a9fe:a9fe)'));
      const stored = await cloud.storage.db
        .selectFrom('platform_webhook')
        .select('url')
        .where('id', '=', hook.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.url, 'https://hooks.example.com/placed');
    });

    it('refuses again when sending: a webhook and a company notification saved before the rule are never contacted', async () => {
      // Rows written past the API (saved before this rule existed, or by the operator).
      await cloud.storage.db.deleteFrom('platform_webhook').where('companyId', '=', w.logist.id).execute();
      await createWebhook(
        cloud.storage.db,
        w.logist.id,
        { type: 'PARCEL', subtype: 'DELIVERED_TO_POSTOMAT', url: 'http://169.254.169.254/latest/meta-data/' },
        new Date(),
      );
      await cloud.storage.db
        .updateTable('locker_company')
        .set({ notificationUrl: 'http://10.20.30.40/notify' })
        .where('id', '=', lw.companyA.id)
        .execute();
      const order = (
        await cloud.request('POST', '/api/v1/integration/company/order/create', {
          token: lw.companyA.key,
          body: { toUserPhone: '+996555123456', postomatId: lw.near.id, sendMessage: false },
        })
      ).body;
      await placeOrder(cloud.storage, order.id, lw.near.cells[0].id, cloud.clock.now());
      await finishOrder(cloud.storage, order.id, 'COMPLETED', cloud.clock.now());
      const rows = await eventually(async () => {
        const rows = await cloud.storage.db
          .selectFrom('outbox_event')
          .select(['kind', 'state', 'error', 'httpStatus'])
          .where('orderId', '=', order.id)
          .orderBy('kind')
          .execute();
        assert.deepEqual(
          rows.map((r) => r.state),
          ['FAILED', 'FAILED'],
        );
        return rows;
      });
      assert.deepEqual(rows, [
        {
          kind: 'COMPANY_NOTIFICATION',
          state: 'FAILED',
          error: 'target refused: a private address (10.20.30.40)',
          httpStatus: null,
        },
        {
          kind: 'WEBHOOK',
          state: 'FAILED',
          error: 'target refused: a link-local address (169.254.169.254)',
          httpStatus: null,
        },
      ]);
      const logged = lines.filter((l) => l.msg === 'outbound event' && l.orderId === order.id);
      assert.deepEqual(logged.map((l) => [l.level, l.kind, l.error]).sort(), [
        ['warn', 'COMPANY_NOTIFICATION', 'target refused: a private address (10.20.30.40)'],
        ['warn', 'WEBHOOK', 'target refused: a link-local address (169.254.169.254)'],
      ]);
    });
  });

  describe(`webhook targets outside development (${dialect.name})`, () => {
    it('refuses loopback unless listed, and allows it with NODE_ENV=development', async () => {
      for (const [env, status] of [
        [{ WEBHOOK_ALLOW_HOSTS: '' }, 400],
        [{ WEBHOOK_ALLOW_HOSTS: '', NODE_ENV: 'development' }, 200],
      ] as const) {
        const cloud = await startTestCloud(dialect, { env });
        try {
          await seedPlatformWorld(cloud.storage.db);
          const admin = (
            await cloud.request('POST', '/api/v1/auth/login', {
              body: { email: 'admin@silkroad.example', password: PASSWORD },
            })
          ).body.accessToken;
          const make = (subtype: string, url: string) =>
            cloud.request('POST', '/api/v1/logistic-company/webhook/create', {
              token: admin,
              body: { type: 'PARCEL', subtype, url },
            });
          const literal = await make('DELIVERED_TO_POSTOMAT', 'http://127.0.0.1:9/h');
          const named = await make('TRANSFERRED_TO_CLIENT', 'http://localhost:9/h');
          assert.deepEqual(
            [literal.status, named.status],
            [status, status],
            `${JSON.stringify(env)}: ${literal.text} ${named.text}`,
          );
          if (status === 400) {
            assert.equal(literal.body.message, 'body/url must not point to a loopback address (127.0.0.1)');
            assert.equal(named.body.message, 'body/url must not point to a loopback address (localhost)');
          }
        } finally {
          await cloud.stop();
        }
      }
    });
  });
}
