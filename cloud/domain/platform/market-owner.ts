/**
 * Who handles a marketplace's parcels. The marketplace hands them to a partner: the parcel
 * belongs to that company, and its receiver and sender become that company's client (with a
 * client code from its counter, shown with its code names) and supplier, so the parcel shows
 * in its lists and its staff move it. The first logistics partner is chosen, else the first
 * courier partner; without one no client code can be assigned (the spec's CODE_NOT_FOUND).
 */
export function parcelOwner<P extends { id: number; type: string; isActive: number }>(
  partners: readonly P[],
): P | undefined {
  const active = partners.filter((p) => p.isActive === 1).sort((a, b) => a.id - b.id);
  return active.find((p) => p.type === 'LOGIST') ?? active.find((p) => p.type === 'COURIER');
}
