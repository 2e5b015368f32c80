/**
 * PostgreSQL's named statements (cloud/storage/pg-named-statements.ts), on a real server when
 * TEST_DATABASE_URL is set: a connection names a parametrised text the second time it runs it,
 * keeps at most `maxNamed`, leaves texts without parameters to the simple protocol, and gets
 * past a table changed under a kept `select *` (another process's migration).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { nameRepeatedStatements } from '../../cloud/storage/pg-named-statements.ts';
import { DIALECTS } from '../helpers/storage.ts';

for (const dialect of DIALECTS.filter((d) => d.name === 'postgres')) {
  describe('named statements on PostgreSQL', () => {
    const schema = `t_named_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: dialect.url });
    let pool: pg.Pool;

    /** A query as Kysely runs it: `client.query(text, values)` on a pooled connection. */
    const run = async (text: string, values: unknown[]) => {
      const client = await pool.connect();
      try {
        return await client.query(text, values);
      } finally {
        client.release();
      }
    };
    /** The statements this pool's one connection holds named, from PostgreSQL itself. */
    const namedTexts = async () =>
      (await pool.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map(
        (r) => r.statement,
      );

    before(async () => {
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.query(`create table ${schema}.item (id integer primary key, name text)`);
      await admin.query(`insert into ${schema}.item values (1, 'one'), (2, 'two')`);
      pool = new pg.Pool({ connectionString: dialect.url, max: 1, options: `-c search_path=${schema}` });
      nameRepeatedStatements(pool, { after: 2, maxNamed: 3 });
    });
    after(async () => {
      await pool.end();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    });

    it('names a parametrised text at its second run, and only then', async () => {
      const text = 'select name from item where id = $1';
      assert.deepEqual((await run(text, [1])).rows, [{ name: 'one' }]);
      assert.ok(!(await namedTexts()).includes(text), 'a text run once stays unnamed');
      assert.deepEqual((await run(text, [2])).rows, [{ name: 'two' }]);
      assert.ok((await namedTexts()).includes(text), 'named at its second run');
      assert.deepEqual((await run(text, [1])).rows, [{ name: 'one' }], 'the named statement answers');
    });

    it('leaves texts without parameters unnamed (the simple protocol carries several statements)', async () => {
      for (let i = 0; i < 3; i++) {
        const r = (await run('select 1 as a; select 2 as b', [])) as unknown as pg.QueryResult[];
        assert.equal(r.length, 2);
      }
      assert.ok(!(await namedTexts()).some((t) => t.includes('select 2 as b')));
    });

    it('keeps at most maxNamed texts per connection; the others still answer', async () => {
      for (let k = 0; k < 6; k++) {
        const text = `select name from item where id = $1 and ${k} = ${k}`;
        for (let i = 0; i < 3; i++) assert.deepEqual((await run(text, [2])).rows, [{ name: 'two' }]);
      }
      assert.equal((await namedTexts()).length, 3);
    });

    it('gets past a table changed under a kept select *: again at once outside a transaction, unnamed inside one afterwards', async () => {
      const star = 'select * from item where id = $1 and $2::int = 0';
      const inTx = 'select * from item where id = $1 and $2::int = 1';
      // The cap of the test before is reached: make room by using a fresh connection.
      await pool.end();
      pool = new pg.Pool({ connectionString: dialect.url, max: 1, options: `-c search_path=${schema}` });
      nameRepeatedStatements(pool, { after: 2, maxNamed: 3 });
      for (let i = 0; i < 2; i++) {
        await run(star, [1, 0]);
        await run(inTx, [1, 1]);
      }
      assert.equal((await namedTexts()).length, 2);
      await admin.query(`alter table ${schema}.item add column size integer not null default 7`);

      assert.deepEqual((await run(star, [1, 0])).rows, [{ id: 1, name: 'one', size: 7 }]);

      const client = await pool.connect();
      try {
        await client.query('begin', []);
        await assert.rejects(client.query(inTx, [1, 1]), (err: { code?: string }) => err.code === '0A000');
        await client.query('rollback', []);
        await client.query('begin', []);
        assert.deepEqual((await client.query(inTx, [1, 1])).rows, [{ id: 1, name: 'one', size: 7 }]);
        await client.query('commit', []);
      } finally {
        client.release();
      }
    });
  });
}
