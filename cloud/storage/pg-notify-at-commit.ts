/**
 * A change's wake-up (`select pg_notify(channel, message)`, storage/notifications.ts) is sent
 * inside its transaction, so that other processes hear of it only if it commits. PostgreSQL
 * delivers a notification at commit whenever it was issued, so here it waits for the COMMIT and
 * goes in the same round trip (one simple-protocol text: the notifications, then `commit`):
 * every write transaction that wakes others, an order's creation and each door event among
 * them, saves a round trip. A ROLLBACK drops what waited, as PostgreSQL would. A notification
 * issued inside a savepoint that is rolled back is sent all the same: one wake-up too many,
 * which costs a listener a look and nothing else.
 *
 * If the combined text fails (a notification refused, or the commit itself, e.g. a deferred
 * constraint), a ROLLBACK follows before the error is passed on, so the connection goes back to
 * the pool outside any transaction.
 */
import type pg from 'pg';
import { COMMIT, ROLLBACK, TRANSACTION_START, wrapPlainQueries } from './pg-query-calls.ts';

const NOTIFY = /^select pg_notify\(\$1, \$2\)$/;

/** What pg would have answered for the notification: one row, the function's void value. */
const NOTIFIED = { command: 'SELECT', rowCount: 1, rows: [{ pg_notify: '' }], fields: [], oid: 0 };

/** For every client the pool opens. Apply after any other wrapper of `query`: this one must see the plain calls. */
export function notifyAtCommit(pool: pg.Pool): void {
  pool.on('connect', (client) => notifyAtCommitOf(client));
}

export function notifyAtCommitOf(client: pg.PoolClient | pg.Client): void {
  let inTransaction = false;
  let waiting: string[] = [];

  wrapPlainQueries(client, (text, values, query) => {
    if (TRANSACTION_START.test(text)) {
      inTransaction = true;
      waiting = [];
      return query(text, values);
    }
    if (inTransaction && NOTIFY.test(text) && values.length === 2) {
      const [channel, message] = values.map(String);
      waiting.push(`select pg_notify(${client.escapeLiteral(channel)}, ${client.escapeLiteral(message)})`);
      return Promise.resolve({ ...NOTIFIED });
    }
    if (ROLLBACK.test(text)) {
      inTransaction = false;
      waiting = [];
      return query(text, values);
    }
    if (!COMMIT.test(text)) return query(text, values);
    inTransaction = false;
    const notifications = waiting;
    waiting = [];
    if (!notifications.length) return query(text, values);
    return query(`${notifications.join('; ')}; commit`, []).then(
      (results: unknown) => (Array.isArray(results) ? results[results.length - 1] : results),
      async (err: unknown) => {
        await query('rollback', []).catch(() => {});
        throw err;
      },
    );
  });
}
