import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { hashApiKey } from '../../cloud/domain/secrets.ts';
import { useOperator } from './harness.ts';

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] company commands`, () => {
    const op = useOperator(dialect);

    it('creates a company with prices in major units and stores minor units', async () => {
      const c = await op.json(
        'company',
        'create',
        '--title',
        'Express Courier',
        '--order-price',
        '150',
        '--delivery-price',
        '49.90',
        '--default-days',
        '5',
        '--balance',
        '1000',
        '--notification-url',
        'https://example.com/hook',
      );
      assert.deepEqual(
        {
          title: c.title,
          orderPrice: c.orderPrice,
          deliveryPrice: c.deliveryPrice,
          defaultDays: c.defaultDays,
          balance: c.balance,
          isActive: c.isActive,
          notificationUrl: c.notificationUrl,
        },
        {
          title: 'Express Courier',
          orderPrice: 150,
          deliveryPrice: 49.9,
          defaultDays: 5,
          balance: 1000,
          isActive: true,
          notificationUrl: 'https://example.com/hook',
        },
      );
      const row = await op
        .storage()
        .db.selectFrom('locker_company')
        .selectAll()
        .where('id', '=', c.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.orderPrice, 15000);
      assert.equal(row.deliveryPrice, 4990);
    });

    it('uses defaults: 3 days, free, zero balance', async () => {
      const c = await op.json('company', 'create', '--title', 'Free Co');
      assert.deepEqual(
        [c.defaultDays, c.orderPrice, c.deliveryPrice, c.balance, c.notificationUrl],
        [3, 0, 0, 0, null],
      );
    });

    it('lists and shows companies, text and JSON', async () => {
      const c = await op.json('company', 'create', '--title', 'Listed Co', '--order-price', '12.5');
      const list = await op.json('company', 'list');
      assert.ok(list.some((x: any) => x.id === c.id && x.orderPrice === 12.5));
      const text = await op.run('company', 'list');
      assert.match(text.stdout, /Listed Co\s+yes\s+0\.00\s+12\.50/);
      const shown = await op.json('company', 'show', '--id', c.id);
      assert.deepEqual([shown.title, shown.apiKeyCount, shown.orders], ['Listed Co', 0, []]);
      await op.json('api-key', 'create', '--company', c.id);
      assert.match((await op.run('company', 'show', '--id', c.id)).stdout, /apiKeys: +1\norders: +none/);
    });

    it('updates fields, sets and clears the notification URL, switches off', async () => {
      const c = await op.json('company', 'create', '--title', 'Old name');
      const u = await op.json(
        'company',
        'update',
        '--id',
        c.id,
        '--title',
        'New name',
        '--notification-url',
        'http://127.0.0.1:9/n',
        '--default-days',
        '7',
        '--order-price',
        '99.99',
        '--active',
        'false',
      );
      assert.deepEqual(
        [u.title, u.notificationUrl, u.defaultDays, u.orderPrice, u.isActive],
        ['New name', 'http://127.0.0.1:9/n', 7, 99.99, false],
      );
      const cleared = await op.json('company', 'update', '--id', c.id, '--clear', 'notification-url');
      assert.equal(cleared.notificationUrl, null);
      assert.equal(cleared.title, 'New name', 'flags not given stay as they were');
    });

    it('tops up and withdraws, never below zero', async () => {
      const c = await op.json('company', 'create', '--title', 'Money Co', '--balance', '10');
      assert.equal((await op.json('company', 'top-up', '--id', c.id, '--amount', '5.25')).balance, 15.25);
      assert.equal((await op.json('company', 'withdraw', '--id', c.id, '--amount', '15')).balance, 0.25);
      const err = await op.fails(1, 'company', 'withdraw', '--id', c.id, '--amount', '0.26');
      assert.match(err, /below zero/);
      assert.equal((await op.json('company', 'show', '--id', c.id)).balance, 0.25);
    });

    it('names unknown companies and bad flags', async () => {
      assert.match(await op.fails(1, 'company', 'show', '--id', 'nosuchcompany'), /no locker company nosuchcompany/);
      assert.match(
        await op.fails(1, 'company', 'top-up', '--id', 'nosuchcompany', '--amount', '1'),
        /no locker company nosuchcompany/,
      );
      assert.match(await op.fails(2, 'company', 'create'), /--title is required/);
      assert.match(
        await op.fails(2, 'company', 'create', '--title', 'X', '--order-price', '1.234'),
        /--order-price .*not an amount/,
      );
      assert.match(
        await op.fails(2, 'company', 'create', '--title', 'X', '--order-price', '-1'),
        /--order-price must not be negative/,
      );
      assert.match(
        await op.fails(2, 'company', 'create', '--title', 'X', '--notification-url', 'ftp://x'),
        /--notification-url must be an http\(s\) URL/,
      );
      assert.match(
        await op.fails(2, 'company', 'create', '--title', 'X', '--colour', 'red'),
        /--colour is not a flag of "company create"/,
      );
      assert.match(
        await op.fails(2, 'company', 'top-up', '--id', 'x', '--amount', '0'),
        /--amount must be greater than zero/,
      );
      assert.match(
        await op.fails(2, 'company', 'update', '--id', 'x', '--clear', 'title'),
        /--clear lists fields to clear/,
      );
      assert.match(
        await op.fails(2, 'company', 'update', '--id', 'x'),
        /give at least one flag to change besides --id/,
      );
      assert.match(await op.fails(1, 'company', 'update', '--id', 'x', '--title', 'y'), /no locker company x/);
    });
  });

  describe(`[${dialect.name}] api-key commands`, () => {
    const op = useOperator(dialect);

    it('creates a key, prints it once, and lists keys without them', async () => {
      const c = await op.json('company', 'create', '--title', 'Keyed Co');
      const k = await op.json('api-key', 'create', '--company', c.id, '--title', 'shop');
      assert.match(k.key, /^plk_/);
      assert.equal(k.keyPrefix, k.key.slice(0, 8));
      const row = await op
        .storage()
        .db.selectFrom('locker_api_key')
        .selectAll()
        .where('id', '=', k.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.keyHash, hashApiKey(k.key));

      const listed = await op.run('api-key', 'list', '--company', c.id, '--json');
      const keys = JSON.parse(listed.stdout);
      assert.deepEqual(
        keys.map((x: any) => [x.id, x.title, x.keyPrefix]),
        [[k.id, 'shop', k.keyPrefix]],
      );
      assert.ok(
        !listed.stdout.includes(k.key) && !listed.stdout.includes(row.keyHash),
        'neither the key nor its hash is listed',
      );
      const text = await op.run('api-key', 'list', '--company', c.id);
      assert.ok(
        text.stdout.includes(k.keyPrefix) && !text.stdout.includes(k.key) && !text.stdout.includes(row.keyHash),
      );
    });

    it('revokes a key', async () => {
      const c = await op.json('company', 'create', '--title', 'Revoking Co');
      const k = await op.json('api-key', 'create', '--company', c.id);
      assert.equal(k.title, 'default');
      await op.json('api-key', 'revoke', '--id', k.id);
      assert.deepEqual(await op.json('api-key', 'list', '--company', c.id), []);
      assert.match(await op.fails(1, 'api-key', 'revoke', '--id', k.id), new RegExp(`no API key ${k.id}`));
    });

    it('refuses unknown companies', async () => {
      assert.match(await op.fails(1, 'api-key', 'create', '--company', 'ghost'), /no locker company ghost/);
      assert.match(await op.fails(1, 'api-key', 'list', '--company', 'ghost'), /no locker company ghost/);
      assert.match(await op.fails(2, 'api-key', 'list'), /--company is required/);
    });
  });
}
