/**
 * Query-string coercion as the spec describes it: values arrive as strings; `true`/`false`
 * become booleans, numerals become numbers, a repeated parameter becomes an array (and a
 * single value of an array parameter an array of one).
 */
import { z } from 'zod';
import { NAMED_FORMATS } from './validation.ts';

const NUMERAL = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

export const toNumber = (v: unknown) => (typeof v === 'string' && NUMERAL.test(v) ? Number(v) : v);
export const toBoolean = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);
export const toArray = (v: unknown) => (v === undefined || Array.isArray(v) ? v : [v]);

/** An integer whose type error reads `must be integer` (zod says "number" for non-numbers). */
export const integer = () => z.int({ error: (iss) => (iss.code === 'invalid_type' ? 'must be integer' : undefined) });

export const qBool = () => z.preprocess(toBoolean, z.boolean());
export const qInt = (schema: z.ZodType<number> = integer()) => z.preprocess(toNumber, schema);
export const qNum = (schema: z.ZodType<number> = z.number()) => z.preprocess(toNumber, schema);
export const qArray = <T extends z.ZodType>(item: T) => z.preprocess(toArray, z.array(item));

const CUID2 = /^[a-z][0-9a-z]{1,31}$/;
NAMED_FORMATS.set(String(CUID2), 'cuid2');
/** cuid2 ids as @paralleldrive/cuid2 makes them (a letter, then lowercase letters and digits) */
export const cuid2 = () => z.string().regex(CUID2);

/** `page`/`pageSize` pair that paginates only when both are present. */
export const optionalPaging = {
  page: qInt(integer().min(1)).optional(),
  pageSize: qInt(integer().min(1)).optional(),
};

export function pageWindow(q: { page?: number; pageSize?: number }): { limit: number; offset: number } | undefined {
  if (q.page === undefined || q.pageSize === undefined) return undefined;
  return { limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
}
