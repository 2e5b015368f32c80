/** Flag schemas for operator commands; values arrive as strings, as in a query string. */
import { z } from 'zod';
import { parseMoney } from '../domain/money.ts';
import { toBoolean, toNumber } from '../http/query.ts';

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
export const fBool = () => z.preprocess((v) => (v === '' || v === true ? true : toBoolean(v)), z.boolean({ error: 'must be true or false' }));
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
export const fUrl = () => z.url({ error: 'must be an http(s) URL' }).refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL');
