/**
 * Kysely builds and compiles a query's SQL on every call; on the hottest reads that costs about
 * as much as running the query. A prepared query is built once, with marker values where the
 * parameters go, and then executed with new parameters: the same typed query definition, on
 * either dialect, without the per-call build. The SQL text never changes, so SQLite's statement
 * cache (database.ts) always hits. Prepared queries are reads: on a SQLite file they run on the
 * read-only connection when the storage's read scheduler says (read-batcher.ts), except inside a
 * transaction, which must see its own writes.
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { directReaderOf } from './database.ts';

const MARKER = '\u0000prepared-param-';

export type Prepared<A extends unknown[], R> = (db: Kysely<any>, ...args: A) => Promise<R[]>;

/**
 * `build` receives one marker per parameter and returns the query; each marker must be used as
 * a plain value (a `where` operand, a `limit`...), not spliced into SQL text.
 */
export function prepared<A extends unknown[], R>(
  arity: A['length'],
  build: (db: Kysely<any>, ...markers: any[]) => Compilable<R>,
): Prepared<A, R> {
  const compiledFor = new WeakMap<Kysely<any>, { sql: string; slots: Array<number | { value: unknown }> }>();
  const markers = Array.from({ length: arity }, (_, i) => `${MARKER}${i}`);
  return async (db, ...args) => {
    let c = compiledFor.get(db);
    if (!c) {
      const compiled = build(db, ...markers).compile();
      const slots = compiled.parameters.map((v) => {
        const i = typeof v === 'string' && v.startsWith(MARKER) ? Number(v.slice(MARKER.length)) : -1;
        return i >= 0 ? i : { value: v };
      });
      const used = new Set(slots.filter((s): s is number => typeof s === 'number'));
      if (used.size !== arity)
        throw new Error(`prepared query uses ${used.size} of its ${arity} parameters: ${compiled.sql}`);
      c = { sql: compiled.sql, slots };
      compiledFor.set(db, c);
    }
    const parameters = c.slots.map((s) => (typeof s === 'number' ? args[s] : s.value));
    const direct = directReaderOf(db);
    if (!direct) return (await db.executeQuery<R>(CompiledQuery.raw(c.sql, parameters))).rows;
    return direct(c.sql, parameters) as Promise<R[]>;
  };
}
