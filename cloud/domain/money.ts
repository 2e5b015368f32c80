/**
 * Money is kept in integer minor units (1/100) so sums are exact; the API shows major units
 * as JSON numbers, as the spec's examples do.
 */
import { DomainError } from './errors.ts';

export const toMajor = (minor: number): number => Math.round(minor) / 100;

/** Parses "12", "12.5", "12.50" (at most two decimals) into minor units. */
export function parseMoney(text: string): number {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not an amount (use digits with at most two decimals, e.g. 150 or 99.90)`);
  const minor = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(minor)) throw new Error(`amount ${text} is too large`);
  return m[1] ? -minor : minor;
}

/** ISO 4217 currency codes: exactly three letters, kept upper-case. */
export function normalizeCurrency(text: string): string {
  const code = text.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code))
    throw new DomainError('NOT_ACCEPTABLE', `currency "${text}" must be a three-letter ISO 4217 code (e.g. KGS, USD)`);
  return code;
}

/** A major-unit amount from a request (e.g. 12.5) → minor units, rounded to the nearest one. */
export function toMinorUnits(major: number): number {
  const minor = Math.round(major * 100);
  if (!Number.isSafeInteger(minor)) throw new DomainError('NOT_ACCEPTABLE', `amount ${major} is too large`);
  return minor;
}
