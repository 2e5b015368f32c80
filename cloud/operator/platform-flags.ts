/** Flag schemas of the platform commands (values arrive as strings). */
import { z } from 'zod';
import { fInt } from './flags.ts';

/** a platform record id: a whole number >= 1 */
export const fId = () => fInt(1);

/** one of a closed set, named in the error */
export const fChoice = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.enum(values, { error: `must be one of ${values.join(', ')}` }),
  );

/** `--partners 1,2,3` */
export const fIdList = () =>
  z.string({ error: 'is required' }).transform((text, ctx) => {
    const parts = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const ids = parts.map(Number);
    const bad = parts.find((p, i) => !/^\d+$/.test(p) || ids[i] < 1);
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `"${bad}" is not an id (give ids >= 1, comma-separated, e.g. 1,2)` });
      return z.NEVER;
    }
    return [...new Set(ids)];
  });

/** `--codes SRL:1,SRLA:2`: code name and cargo type id, comma-separated */
export const fCodeList = () =>
  z.string({ error: 'is required' }).transform((text, ctx) => {
    const out: Array<{ title: string; cargoTypeId: number }> = [];
    for (const item of text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^([A-Za-z]+):(\d+)$/.exec(item);
      if (!m || Number(m[2]) < 1) {
        ctx.addIssue({ code: 'custom', message: `"${item}" is not codeName:cargoTypeId (e.g. SRL:1)` });
        return z.NEVER;
      }
      out.push({ title: m[1], cargoTypeId: Number(m[2]) });
    }
    return out;
  });

/** `--schedules '[{"day":"MON","open":"09:00","close":"20:00"}]'`: a JSON array */
export const fJsonArray = () =>
  z.string({ error: 'is required' }).transform((text, ctx) => {
    try {
      const v = JSON.parse(text);
      if (Array.isArray(v)) return v as unknown[];
    } catch {
      // reported below
    }
    ctx.addIssue({
      code: 'custom',
      message: 'must be a JSON array, e.g. \'[{"day":"MON","open":"09:00","close":"20:00"}]\'',
    });
    return z.NEVER;
  });

export const fEmail = () =>
  z
    .string({ error: 'is required' })
    .trim()
    .pipe(z.email({ error: 'must be an email address' }));
export const fPhone = () =>
  z
    .string({ error: 'is required' })
    .trim()
    .regex(/^\+?\d{5,20}$/, 'must be a phone number: digits, optionally after +, 5-20 of them');
export const fCurrency = () =>
  z
    .string({ error: 'is required' })
    .trim()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code (KGS, USD)');
