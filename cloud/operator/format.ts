/** Plain-text output for operators: aligned tables and `name: value` blocks. */
import { toMajor } from '../domain/money.ts';

/** 15000 → "150.00" */
export const money = (minor: number): string => toMajor(minor).toFixed(2);
export const yesNo = (flag: number | boolean): string => (flag ? 'yes' : 'no');

const show = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : String(v));

export function table(rows: Array<Record<string, unknown>>, columns: string[]): string {
  if (!rows.length) return '(none)';
  const cells = rows.map((r) => columns.map((c) => show(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

export function block(obj: Record<string, unknown>, keys: string[] = Object.keys(obj)): string {
  const width = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `${(`${k}:`).padEnd(width + 1)} ${show(obj[k])}`).join('\n');
}
