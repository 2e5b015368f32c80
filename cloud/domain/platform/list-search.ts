/**
 * The `search`, `code` and `codes` parameters of the parcel and cargo lists (the spec's three
 * search rules), read into what storage has to select.
 *
 * 1. `<code name>-<client code>` (code name in any case) selects that client's items;
 * 2. any other string is a substring of the item's search text (search-text.ts); a whole
 *    number also selects the client with that code;
 * 3. form 1 combined with `code`/`codes`: `codes` (which wins over `code`) must contain the
 *    client's code, `code` must equal it, or nothing is selected.
 */
import { parseClientCode } from './client-codes.ts';

/**
 * A trigram index answers substrings of at least three characters; shorter ones are scanned
 * within the caller's items (see docs/platform.md, "Search").
 */
export const TRIGRAM_MIN = 3;

/** Client codes are integers below 10^9 (parseClientCode reads at most nine digits). */
const WHOLE_NUMBER = /^\d{1,9}$/;

export type ListSearch =
  /** rule 1: the client `code` of the company whose code name is `codeName` */
  | { kind: 'client'; codeName: string; code: number }
  /** rule 2: lower-cased `text` in the search text, or (`code`) the client with that code */
  | { kind: 'text'; text: string; code?: number; indexed: boolean };

export function parseListSearch(search: string | undefined): ListSearch | undefined {
  const trimmed = search?.trim() ?? '';
  if (trimmed === '') return undefined;
  const client = parseClientCode(trimmed);
  if (client) return { kind: 'client', ...client };
  const text = trimmed.toLowerCase();
  const code = WHOLE_NUMBER.test(trimmed) && Number(trimmed) >= 1 ? Number(trimmed) : undefined;
  return { kind: 'text', text, ...(code === undefined ? {} : { code }), indexed: [...text].length >= TRIGRAM_MIN };
}

/**
 * The client codes the list is limited to: undefined for no limit, `null` when rule 3 leaves
 * nothing to select (the answer is then `{ total: 0, data: [] }`).
 */
export function clientCodesFilter(
  search: ListSearch | undefined,
  code?: number,
  codes?: readonly number[],
): number[] | undefined | null {
  if (search?.kind === 'client') {
    const own = search.code;
    if (codes !== undefined) return codes.includes(own) ? [own] : null;
    if (code !== undefined) return code === own ? [own] : null;
    return [own];
  }
  if (codes !== undefined) return [...new Set(codes)];
  return code === undefined ? undefined : [code];
}
