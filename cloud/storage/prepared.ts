/**
 * Kysely builds and compiles a query's SQL on every call; on the hottest reads that costs about
 * as much as running the query, and an order creation's dozen writes spent a sixth of its time
 * building SQL. A prepared query is built once, with marker values where the parameters go, and
 * then executed with new parameters: the same typed query definition, on either dialect,
 * without the per-call build. The SQL text never changes, so SQLite's statement cache
 * (database.ts) always hits. Prepared reads run, on a SQLite file, on the read-only connection
 * when the storage's read scheduler says (read-batcher.ts), except inside a transaction, which
 * must see its own writes; prepared writes run where they are called, in the caller's transaction.
 */
import { CompiledQuery, type Compilable, sql, type Insertable, type Kysely, type QueryResult } from 'kysely';
import { dialectOf, directReaderOf } from './database.ts';
import type { Database } from './schema.ts';

const MARKER = '\u0000prepared-param-';

export type Prepared<A extends unknown[], R> = (db: Kysely<any>, ...args: A) => Promise<R[]>;
export type PreparedWrite<A extends unknown[], R> = (db: Kysely<any>, ...args: A) => Promise<QueryResult<R>>;

type Slot = number | { value: unknown };

/**
 * The query's SQL and where each parameter comes from, compiled at its first use on a database.
 * Kept per dialect adapter: a transaction is a new Kysely object each time, but it shares its
 * database's adapter (and plugins, which this code never varies), so it shares the compiled SQL.
 */
function compiledOnce(arity: number, build: (db: Kysely<any>, ...markers: any[]) => Compilable<unknown>) {
  const compiledFor = new WeakMap<object, { sql: string; slots: Slot[] }>();
  const markers = Array.from({ length: arity }, (_, i) => `${MARKER}${i}`);
  return (db: Kysely<any>, args: readonly unknown[]) => {
    const key = db.getExecutor().adapter;
    let c = compiledFor.get(key);
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
      compiledFor.set(key, c);
    }
    return { sql: c.sql, parameters: c.slots.map((s) => (typeof s === 'number' ? args[s] : s.value)) };
  };
}

/**
 * `build` receives one marker per parameter and returns the query; each marker must be used as
 * a plain value (a `where` operand, a `limit`...), not spliced into SQL text.
 */
export function prepared<A extends unknown[], R>(
  arity: A['length'],
  build: (db: Kysely<any>, ...markers: any[]) => Compilable<R>,
): Prepared<A, R> {
  const compiled = compiledOnce(arity, build);
  return async (db, ...args) => {
    const { sql, parameters } = compiled(db, args);
    const direct = directReaderOf(db);
    if (!direct) return (await db.executeQuery<R>(CompiledQuery.raw(sql, parameters))).rows;
    return direct(sql, parameters) as Promise<R[]>;
  };
}

/**
 * A prepared insert, update or delete (`returning` rows, when it has them, in `rows`). Markers
 * are values as in `prepared`: every column an insert writes is named with its own marker.
 */
export function preparedWrite<A extends unknown[], R = never>(
  arity: A['length'],
  build: (db: Kysely<any>, ...markers: any[]) => Compilable<R>,
): PreparedWrite<A, R> {
  const compiled = compiledOnce(arity, build);
  return (db, ...args) => {
    const { sql, parameters } = compiled(db, args);
    return db.executeQuery<R>(CompiledQuery.raw(sql, parameters));
  };
}

/**
 * A list of ids as one JSON parameter, for `where(column, 'in', jsonIds(db, marker))` in a
 * prepared query: one statement text whatever the list's length, so it is built and prepared
 * once (an IN-list of parameters is a new text for each length, built by Kysely and prepared by
 * SQLite every time). A prepared query is compiled per database, so `db` names the dialect.
 */
export const jsonIds = (db: Kysely<any>, json: unknown) =>
  dialectOf(db) === 'postgres'
    ? sql<string>`(select json_array_elements_text(cast(${json} as json)))`
    : sql<string>`(select value from json_each(${json}))`;

type Primitive = string | number | bigint | boolean | null;
const isPrimitive = (v: unknown): v is Primitive => v === null || (typeof v !== 'object' && typeof v !== 'function');
/** Insert shapes kept per table: each is one SQL text (the row count and the columns written). */
const MAX_INSERT_SHAPES = 64;

/**
 * Inserts of plain rows into `table`, prepared per shape (how many rows, which columns, in the
 * row's own key order): the hot inserts always write the same columns. A row with an undefined
 * value (a column left to its default) or an expression, or rows of differing columns, go
 * through Kysely's builder as before.
 */
export function preparedInsert<T extends keyof Database & string>(table: T) {
  const shapes = new Map<string, PreparedWrite<unknown[], unknown>>();
  return (db: Kysely<Database>, rows: ReadonlyArray<Insertable<Database[T]>>): Promise<unknown> => {
    const first = rows[0] as Record<string, unknown> | undefined;
    const columns = first ? Object.keys(first) : [];
    const plain =
      first !== undefined &&
      rows.every((row) => {
        const r = row as Record<string, unknown>;
        const keys = Object.keys(r);
        return keys.length === columns.length && keys.every((k, i) => k === columns[i] && isPrimitive(r[k]));
      });
    if (!plain)
      return db
        .insertInto(table)
        .values(rows as any)
        .execute();
    const shape = `${rows.length}:${columns.join(',')}`;
    let write = shapes.get(shape);
    if (!write) {
      write = preparedWrite(rows.length * columns.length, (d, ...m) =>
        d
          .insertInto(table)
          .values(rows.map((_, r) => Object.fromEntries(columns.map((c, i) => [c, m[r * columns.length + i]]))) as any),
      );
      if (shapes.size >= MAX_INSERT_SHAPES) shapes.delete(shapes.keys().next().value as string);
      shapes.set(shape, write);
    }
    return write(db, ...rows.flatMap((row) => columns.map((c) => (row as Record<string, unknown>)[c])));
  };
}
