/**
 * What the wrappers of a pooled PostgreSQL client's `query` share (pg-named-statements.ts,
 * pg-notify-at-commit.ts): they act on the calls Kysely makes, `query(text, values)` answered by
 * a promise, and pass every other form (a config object, a callback, a cursor) to pg untouched;
 * and they tell where a transaction starts and ends from the texts Kysely sends for it.
 */
import type pg from 'pg';

export const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;
export const COMMIT = /^\s*(commit|end)\s*;?\s*$/i;
export const ROLLBACK = /^\s*(rollback|abort)\s*;?\s*$/i;

/**
 * Routes the client's plain calls through `plain`, which gets the original `query` (bound) to
 * run what it decides; the last wrapper installed sees the calls first.
 */
export function wrapPlainQueries(
  client: pg.PoolClient | pg.Client,
  plain: (text: string, values: unknown[], query: (...args: unknown[]) => Promise<any>) => Promise<any>,
): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<any>;
  (client as any).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string' || args.length !== 2 || !Array.isArray(values)) return query(...args);
    return plain(text, values, query);
  };
}
