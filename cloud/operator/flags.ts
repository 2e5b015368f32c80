/** Flag schemas for operator commands; values arrive as strings, as in a query string. */
import { z } from 'zod';
import { parseMoney } from '../domain/money.ts';
import { toBoolean, toNumber } from '../http/query.ts';
import { CELL_SIZES } from '../services/admin/cells.ts';

export const fInt = (min?: number, max?: number) => {
  let s = z.int({ error: 'must be a whole number' });
  if (min !== undefined) s = s.min(min, `must be >= ${min}`);
  if (max !== undefined) s = s.max(max, `must be <= ${max}`);
  return z.preprocess(toNumber, s);
};
export const fNum = (min?: number, max?: number) => {
  let s = z.number({ error: 'must be a number' });
  if (min !== undefined) s = s.min(min, `must be >= ${min}`);
  if (max !== undefined) s = s.max(max, `must be <= ${max}`);
  return z.preprocess(toNumber, s);
};
export const fBool = () =>
  z.preprocess((v) => (v === '' || v === true ? true : toBoolean(v)), z.boolean({ error: 'must be true or false' }));
export const fText = () => z.string({ error: 'is required' }).trim().min(1, 'must not be empty');
/** money in major units with at most two decimals (150, 99.90) → integer minor units */
export const fMoney = () =>
  z.string({ error: 'is required' }).transform((v, ctx) => {
    try {
      return parseMoney(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });
/** a price: money that is zero or more */
export const fPrice = () => fMoney().refine((v) => v >= 0, 'must not be negative');
/** an amount to move: money above zero */
export const fAmount = () => fMoney().refine((v) => v > 0, 'must be greater than zero');
export const fUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
export const fLat = () => fNum(-90, 90);
export const fLng = () => fNum(-180, 180);
export const fSize = () => z.enum(CELL_SIZES, { error: `must be one of ${CELL_SIZES.join(', ')}` });
export const fShortId = () =>
  z.string({ error: 'is required' }).regex(/^[A-Za-z0-9-]{3,32}$/, 'must be 3-32 letters, digits or dashes');
/** `--clear a,b`: names of optional fields to empty (one flag so a forgotten value never clears anything) */
export const fClear = <const T extends readonly [string, ...string[]]>(fields: T) =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.enum(fields, { error: `lists fields to clear, among: ${fields.join(', ')}` }))
        .min(1, `names at least one of: ${fields.join(', ')}`),
    );

/** A command's flags: unknown flags are an error, not silently dropped. */
export const flagsOf = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape);

/** `--cells "1:S:0:1,2:M:0:2"`: number:size:board:lock, comma-separated */
export const fCells = () =>
  z.string({ error: 'is required' }).transform((text, ctx) => {
    const out = [];
    for (const item of text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^(\d+):([A-Za-z]+):(\d+):(\d+)$/.exec(item);
      const size = m?.[2].toUpperCase() as (typeof CELL_SIZES)[number];
      if (!m || !CELL_SIZES.includes(size)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${item}" is not number:size:board:lock (e.g. 1:S:0:1; sizes ${CELL_SIZES.join(', ')})`,
        });
        return z.NEVER;
      }
      out.push({ number: Number(m[1]), size, board: Number(m[3]), lock: Number(m[4]) });
    }
    if (!out.length) {
      ctx.addIssue({ code: 'custom', message: 'lists no cells (e.g. "1:S:0:1,2:M:0:2")' });
      return z.NEVER;
    }
    return out;
  });
