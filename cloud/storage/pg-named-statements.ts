/**
 * PostgreSQL parses, analyses and plans an unnamed statement on every execution; a named one is
 * parsed once per connection and its plan kept. For the cloud's hot statements (an order's
 * target read with its two subqueries, the audience read, the outbox claim) that preparation is
 * more than half of the round trip: 200 µs unnamed against 90 µs named for the create's target
 * read on this machine, 75 against 70 µs for a one-table lookup. So each pooled connection names
 * a parametrised statement the second time it sees its text, up to `maxNamed` texts per
 * connection (the hot ones come first; the rest run unnamed as before).
 *
 * A named statement fails with "cached plan must not change result type" (0A000) when a
 * migration changed a table it reads `*` from while the connection held it (another process
 * migrating a live database). Outside a transaction the statement runs again unnamed, at once;
 * inside one the error stands (the transaction is aborted), and either way the connection runs
 * that text unnamed from then on. A pooler in transaction mode (PgBouncer before 1.21) cannot
 * keep named statements: `POSTGRES_NAMED_STATEMENTS=off` (config.ts) turns this off.
 */
import type pg from 'pg';
import { COMMIT, ROLLBACK, TRANSACTION_START, wrapPlainQueries } from './pg-query-calls.ts';

export interface NamedStatementOptions {
  /** executions of a text, on one connection, before it is named */
  after: number;
  /** named texts per connection */
  maxNamed: number;
}

export const NAMED_STATEMENT_DEFAULTS: NamedStatementOptions = { after: 2, maxNamed: 256 };

/** Texts counted per connection before they are named: enough for every hot text, bounded. */
const MAX_COUNTED = 1_024;

let nextName = 0;

/** Names each connection's repeated parametrised statements, for every client the pool opens. */
export function nameRepeatedStatements(pool: pg.Pool, options: NamedStatementOptions = NAMED_STATEMENT_DEFAULTS): void {
  pool.on('connect', (client) => nameStatementsOf(client, options));
}

/** Names the client's repeated plain calls (pg-query-calls.ts). */
export function nameStatementsOf(client: pg.PoolClient | pg.Client, options: NamedStatementOptions): void {
  const names = new Map<string, string>();
  const counted = new Map<string, number>();
  const unnamed = new Set<string>();
  let inTransaction = false;

  const nameFor = (text: string): string | undefined => {
    const known = names.get(text);
    if (known || unnamed.has(text) || names.size >= options.maxNamed) return known;
    const n = (counted.get(text) ?? 0) + 1;
    counted.delete(text);
    if (n >= options.after) {
      const name = `plk_${(nextName++).toString(36)}`;
      names.set(text, name);
      return name;
    }
    // Oldest first out: a text seen once long ago is forgotten before a recent one.
    counted.set(text, n);
    if (counted.size > MAX_COUNTED) counted.delete(counted.keys().next().value!);
    return undefined;
  };

  wrapPlainQueries(client, (text, values, query) => {
    if (TRANSACTION_START.test(text)) inTransaction = true;
    else if (COMMIT.test(text) || ROLLBACK.test(text)) inTransaction = false;
    // Without parameters pg uses the simple protocol, which also carries multi-statement texts.
    const name = values.length ? nameFor(text) : undefined;
    if (!name) return query(text, values);
    const within = inTransaction;
    return query({ name, text, values }).catch((err: { code?: string }) => {
      if (err?.code !== '0A000') throw err;
      names.delete(text);
      unnamed.add(text);
      if (within) throw err;
      return query(text, values);
    });
  });
}
