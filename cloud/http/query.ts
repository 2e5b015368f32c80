/**
 * Query-string coercion as the spec describes it: values arrive as strings; `true`/`false`
 * become booleans, numerals become numbers, a repeated parameter becomes an array (and a
 * single value of an array parameter an array of one).
 */
import { z } from 'zod';

const NUMERAL = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

export const toNumber = (v: unknown) => (typeof v === 'string' && NUMERAL.test(v) ? Number(v) : v);
export const toBoolean = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);
export const toArray = (v: unknown) => (v === undefined || Array.isArray(v) ? v : [v]);

/** An integer whose type error reads `must be integer` (zod says "number" for non-numbers). */
export const integer = () => z.int({ error: (iss) => (iss.code === 'invalid_type' ? 'must be integer' : undefined) });

/**
 * Integers by the column they reach (docs/security.md, "HTTP limits"): a number JavaScript holds
 * but PostgreSQL's int4 does not was a 500 there ("out of range for type integer").
 */
export const INT4_MAX = 2_147_483_647;
/** A platform record id (an int4 serial column): 1 to 2^31-1. */
export const int4Id = () => integer().min(1).max(INT4_MAX);
/** A value of an int4 column that is not an id (a client code). */
export const int4 = () =>
  integer()
    .min(-INT4_MAX - 1)
    .max(INT4_MAX);
/**
 * Page numbers and page sizes, 1 to 2^31-1 whatever a list's own maximum: the offset
 * (page - 1) × pageSize then stays below 2^62, a valid LIMIT/OFFSET on both databases (it was a
 * 500 beyond 2^63), and a page past the end is simply empty.
 */
export const pageNumber = () => integer().min(1).max(INT4_MAX);
export const pageSize = (max = INT4_MAX) => integer().min(1).max(max);

export const qBool = () => z.preprocess(toBoolean, z.boolean());
export const qInt = (schema: z.ZodType<number> = integer()) => z.preprocess(toNumber, schema);
export const qNum = (schema: z.ZodType<number> = z.number()) => z.preprocess(toNumber, schema);
export const qArray = <T extends z.ZodType>(item: T) => z.preprocess(toArray, z.array(item));

const CUID2 = /^[a-z][0-9a-z]{1,31}$/;
/** cuid2 ids as @paralleldrive/cuid2 makes them (a letter, then lowercase letters and digits); the pattern excludes control characters. */
export const cuid2 = () => z.string().regex(CUID2, { error: 'must match format "cuid2"' });

/** `page`/`pageSize` pair that paginates only when both are present. */
export const optionalPaging = {
  page: qInt(pageNumber()).optional(),
  pageSize: qInt(pageSize()).optional(),
};

export function pageWindow(q: { page?: number; pageSize?: number }): { limit: number; offset: number } | undefined {
  if (q.page === undefined || q.pageSize === undefined) return undefined;
  return { limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
}
