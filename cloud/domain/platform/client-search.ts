/**
 * Client search by code (GET /integrations/client/search-by-code): the five forms of `search`
 * (uppercased and trimmed first), and whose clients a company may search.
 */
import type { CompanyType } from './enums.ts';

/** The spec's limit on one answer. */
export const CLIENT_SEARCH_LIMIT = 20;

export type CodeSearch =
  /** `<name>-<number>`: the client with that code at the company whose code name matches */
  | { form: 'full'; codeName: string; code: number }
  /** `-<number>` or digits only: the client with that code */
  | { form: 'code'; code: number }
  /** Latin letters only: the clients of the company with that code name */
  | { form: 'codeName'; codeName: string }
  /** anything else: nothing */
  | { form: 'none' };

/** At most nine digits: client codes are integers below 10^9, as parseClientCode reads them. */
const NUMBER = '(\\d{1,9})';
const FULL = new RegExp(`^([A-Z]+)-${NUMBER}$`);
const CODE = new RegExp(`^-?${NUMBER}$`);
const NAME = /^[A-Z]+$/;

export function parseCodeSearch(search: string): CodeSearch {
  const s = search.trim().toUpperCase();
  let m = FULL.exec(s);
  if (m) return { form: 'full', codeName: m[1], code: Number(m[2]) };
  m = CODE.exec(s);
  if (m) return { form: 'code', code: Number(m[1]) };
  if (NAME.test(s)) return { form: 'codeName', codeName: s };
  return { form: 'none' };
}

/** Whose clients a company sees: its own, and those of the logistics companies it works with. */
export interface ClientScope {
  own: boolean;
  partners: boolean;
}

/**
 * The search: a logistics company searches its own clients, a warehouse company those of the
 * logistics companies it works with; any other type finds nothing.
 */
export function clientSearchScope(type: CompanyType | string): ClientScope {
  return { own: type === 'LOGIST', partners: type === 'WAREHOUSE' };
}

/**
 * A read by id: the company's own clients, and for a warehouse company also the clients it can
 * find by search, so that a search result can be read back. Anyone else's client is `null`.
 */
export function clientReadScope(type: CompanyType | string): ClientScope {
  return { own: true, partners: type === 'WAREHOUSE' };
}
