/**
 * The texts the parcel and cargo list search matches (the spec's search rule 2), each kept in
 * one lower-case column so a trigram index (SQLite FTS5, PostgreSQL pg_trgm) serves substring
 * searches. Each fact is kept where it lives: an item's own parts in the item's text, the
 * client's name and phone in the client's text, so a client's name is indexed once rather than
 * in each of its items, and a rename touches one row. The list search matches an item whose own
 * text or whose client's text contains the string (storage/shipment-search.ts).
 *
 * Parts are separated by a newline, which no search string spans. The full form
 * `<code name>-<client code>` is search rule 1, a client filter, so it is not in the text.
 */
export interface ClientFacts {
  name: string | null;
  phone: string | null;
}

const join = (parts: Array<string | null | undefined>) =>
  parts
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .map((p) => p.trim().toLowerCase())
    .join('\n');

/** Parcels: track code, description, the client's code names (empty without a client). */
export function parcelSearchText(p: { trackCode: string; description: string | null }, codeNames: string[]): string {
  return join([p.trackCode, p.description, ...codeNames]);
}

/** Cargo: description, the client's code names, logistics company title, tractor number. */
export function cargoSearchText(
  c: { description: string | null; tractorNumber: string | null },
  codeNames: string[],
  companyTitle: string,
): string {
  return join([c.description, ...codeNames, companyTitle, c.tractorNumber]);
}

/** A client: name and phone, which every list search also matches through the client's items. */
export function clientSearchText(c: ClientFacts): string {
  return join([c.name, c.phone]);
}
