/**
 * The text the parcel and cargo list search matches (the spec's search rule 2), kept in one
 * lower-case column so a trigram index (SQLite FTS5, PostgreSQL pg_trgm) serves substring
 * searches. Parts are separated by a newline, which no search string spans. The full form
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

const clientParts = (codeNames: string[], client: ClientFacts | null) =>
  client ? [...codeNames, client.name, client.phone] : [];

/** Parcels: track code, description, code name, client name or phone. */
export function parcelSearchText(p: { trackCode: string; description: string | null }, codeNames: string[], client: ClientFacts | null): string {
  return join([p.trackCode, p.description, ...clientParts(codeNames, client)]);
}

/** Cargo: description, code name, client name or phone, logistics company title, tractor number. */
export function cargoSearchText(
  c: { description: string | null; tractorNumber: string | null },
  codeNames: string[],
  client: ClientFacts | null,
  companyTitle: string,
): string {
  return join([c.description, ...clientParts(codeNames, client), companyTitle, c.tractorNumber]);
}
