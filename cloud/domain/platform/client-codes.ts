/**
 * Client codes. A client's code is an integer unique within its company; the recipient sees it
 * as `<code name>-<code>` (e.g. `ABC-1042`), where the code name is one of the company's code
 * names, each belonging to one cargo type.
 */
import { DomainError } from '../errors.ts';

/** Code names are Latin letters, compared and stored upper-case. */
export const CODE_NAME = /^[A-Z]{1,16}$/;

export function normalizeCodeName(text: string): string {
  const name = text.trim().toUpperCase();
  if (!CODE_NAME.test(name)) throw new DomainError('NOT_ACCEPTABLE', `code name "${text}" must be 1-16 Latin letters`);
  return name;
}

/** `abc-12` → { codeName: 'ABC', code: 12 }; anything else → undefined. */
export function parseClientCode(text: string): { codeName: string; code: number } | undefined {
  const m = /^([A-Za-z]+)-(\d{1,9})$/.exec(text.trim());
  if (!m) return undefined;
  const code = Number(m[2]);
  return code >= 1 ? { codeName: m[1].toUpperCase(), code } : undefined;
}

/**
 * The next code of a company whose last handed-out code is `last`. Codes count up from 1; an
 * operator may ask for a specific free code (a client moving from a paper ledger keeps theirs),
 * and later automatic codes continue above the highest code given.
 */
export function allocateClientCode(last: number, requested?: number): { code: number; last: number } {
  if (requested === undefined) return { code: last + 1, last: last + 1 };
  if (!Number.isSafeInteger(requested) || requested < 1)
    throw new DomainError('NOT_ACCEPTABLE', `client code ${requested} must be a whole number >= 1`);
  return { code: requested, last: Math.max(last, requested) };
}

/** The code names a parcel's client is known by: those of the parcel's cargo type, else all of the company's. */
export function codeNamesFor(
  codes: ReadonlyArray<{ title: string; cargoTypeId: number }>,
  cargoTypeId: number | null,
): string[] {
  const matching = cargoTypeId === null ? [] : codes.filter((c) => c.cargoTypeId === cargoTypeId);
  return (matching.length ? matching : codes).map((c) => c.title);
}
