/**
 * A transaction's notifications go with its COMMIT (cloud/storage/pg-notify-at-commit.ts), on a
 * real server when TEST_DATABASE_URL is set: heard only after the commit and in one round trip
 * with it, never after a rollback, at once outside a transaction; and a commit that fails
 * leaves the connection outside any transaction.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { notifyAtCommit } from '../../cloud/storage/pg-notify-at-commit.ts';
import { DIALECTS } from '../helpers/storage.ts';

for (const dialect of DIALECTS.filter((d) => d.name === 'postgres')) {
  describe('notifications with the commit on PostgreSQL', () => {
    const tag = crypto.randomBytes(4).toString('hex');
    const schema = `t_notify_${tag}`;
    const channel = `t_notify_${tag}`;
    const listener = new pg.Client({ connectionString: dialect.url });
    const heard: string[] = [];
    let pool: pg.Pool;
    /** Every text the connection sent to the server, as the wrapper passed it on. */
    const sent: string[] = [];

    before(async () => {
      await listener.connect();
      listener.on('notification', (n) => heard.push(n.payload ?? ''));
      await listener.query(`listen ${channel}`);
      await listener.query(`create schema ${schema}`);
      await listener.query(
        `create table ${schema}.item (id integer, constraint item_once unique (id) deferrable initially deferred)`,
      );
      pool = new pg.Pool({ connectionString: dialect.url, max: 1, options: `-c search_path=${schema}` });
      pool.on('connect', (client) => {
        const query = client.query.bind(client) as (...a: unknown[]) => unknown;
        (client as any).query = (...a: unknown[]) => {
          sent.push(typeof a[0] === 'string' ? a[0] : '(config)');
          return query(...a);
        };
      });
      notifyAtCommit(pool);
    });
    after(async () => {
      await pool.end();
      await listener.query(`drop schema ${schema} cascade`);
      await listener.end();
    });

    /** Runs `work` on the pool's one connection, as Kysely does: `query(text, values)`. */
    const onConnection = async <T>(work: (q: (text: string, values?: unknown[]) => Promise<any>) => Promise<T>) => {
      const client = await pool.connect();
      try {
        return await work((text, values = []) => client.query(text, values));
      } finally {
        client.release();
      }
    };
    const heardSoon = async (payload: string) => {
      for (let i = 0; i < 100 && !heard.includes(payload); i++) await sleep(10);
      return heard.includes(payload);
    };

    it('sends a notification with the COMMIT, in one round trip, and not before', async () => {
      sent.length = 0;
      await onConnection(async (q) => {
        await q('begin');
        const r = await q('select pg_notify($1, $2)', [channel, "committed 'quoted'"]);
        assert.equal(r.rows.length, 1, 'answered as pg_notify is');
        await q('insert into item values ($1)', [1]);
        await sleep(100);
        assert.ok(!heard.includes("committed 'quoted'"), 'not heard before the commit');
        const commit = await q('commit');
        assert.equal(commit.command, 'COMMIT');
      });
      assert.ok(await heardSoon("committed 'quoted'"));
      assert.equal(sent.filter((t) => t.includes('pg_notify')).length, 1);
      assert.match(sent.at(-1)!, /^select pg_notify\(.*\); commit$/, 'the notification went with the commit');
    });

    it('drops a rolled-back transaction’s notification, and sends one outside a transaction at once', async () => {
      await onConnection(async (q) => {
        await q('begin');
        await q('select pg_notify($1, $2)', [channel, 'rolled back']);
        await q('rollback');
        await q('select pg_notify($1, $2)', [channel, 'alone']);
      });
      assert.ok(await heardSoon('alone'));
      assert.ok(!heard.includes('rolled back'));
    });

    it('a commit that fails is an error, sends nothing, and leaves the connection outside a transaction', async () => {
      await onConnection(async (q) => {
        await q('begin');
        await q('insert into item values ($1), ($1)', [2]);
        await q('select pg_notify($1, $2)', [channel, 'refused']);
        await assert.rejects(q('commit'), (err: { code?: string }) => err.code === '23505');
        // In an aborted transaction this would fail; outside one it answers.
        assert.deepEqual((await q('select 1 as one')).rows, [{ one: 1 }]);
        assert.deepEqual((await q('select count(*)::int as n from item where id = $1', [2])).rows, [{ n: 0 }]);
      });
      await sleep(100);
      assert.ok(!heard.includes('refused'));
    });
  });
}
