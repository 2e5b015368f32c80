/**
 * Marketplace rows → the spec's JSON: pickup points, platform cities and countries, parcels.
 * Flags become booleans, minor units numbers, JSON text its value, here and only here; the
 * parcels' internal filter columns (search text, copies for the lists) stay inside.
 */
import type { Selectable } from 'kysely';
import { toMajor } from '../domain/money.ts';
import type { PlatformCityTable, PlatformCountryTable, WarehouseTable } from '../storage/platform-schema.ts';
import type { Parcel } from '../services/platform/parcels.ts';
import type { MarketParcelView } from '../services/platform/market-parcels.ts';
import { presentOrder } from '../locker-api/present.ts';
import type { ParcelOut, ParcelViewOut, PickupPoint, PlatformCity, PlatformCountry } from './responses.ts';
import type { z } from 'zod';
import type { OrderCodeOut } from '../locker-api/responses.ts';

/** Cities and countries carry a Russian title too; the spec's pickup point does not. */
const titles = (t: { titleCN: string | null; titleEN: string | null; titleKY: string | null }) => ({
  titleCN: t.titleCN,
  titleEN: t.titleEN,
  titleKY: t.titleKY,
});
const allTitles = (t: {
  titleRU: string | null;
  titleCN: string | null;
  titleEN: string | null;
  titleKY: string | null;
}) => ({ titleRU: t.titleRU, ...titles(t) });

export const presentPlatformCountry = (c: Selectable<PlatformCountryTable>): z.output<typeof PlatformCountry> => ({
  id: c.id,
  title: c.title,
  ...allTitles(c),
  isActive: c.isActive === 1,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export const presentPlatformCity = (c: Selectable<PlatformCityTable>): z.output<typeof PlatformCity> => ({
  id: c.id,
  title: c.title,
  ...allTitles(c),
  lat: c.lat,
  lng: c.lng,
  isActive: c.isActive === 1,
  countryId: c.countryId,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export const presentPickupPoint = (w: Selectable<WarehouseTable>): z.output<typeof PickupPoint> => ({
  id: w.id,
  title: w.title,
  ...titles(w),
  address: w.address,
  lat: w.lat,
  lng: w.lng,
  schedule: w.schedule,
  schedules: w.schedules === null ? null : JSON.parse(w.schedules),
  cityId: w.cityId,
  countryId: w.countryId,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export const presentParcel = (p: Parcel): ParcelOut => ({
  id: p.id,
  trackCode: p.trackCode,
  description: p.description,
  weight: p.weight,
  price: toMajor(p.price),
  currency: p.currency,
  status: p.status,
  deliveryMethod: p.deliveryMethod,
  postomatId: p.postomatId,
  postomatOrderId: p.postomatOrderId,
  deliveryWarehouseId: p.deliveryWarehouseId,
  companyId: p.companyId,
  partnerCompanyId: p.partnerCompanyId,
  clientId: p.clientId,
  supplierId: p.supplierId,
  receiptCityId: p.receiptCityId,
  deliveryCityId: p.deliveryCityId,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/** The answer of parcel creation and of the track-code read: the parcel, or with its locker order `{ parcel, postomatOrder, downCode }`. */
export function presentParcelView(v: MarketParcelView): ParcelViewOut {
  if (!v.order) return presentParcel(v.parcel);
  return {
    parcel: presentParcel(v.parcel),
    postomatOrder: presentOrder(v.order),
    downCode: (v.downCode ?? null) as OrderCodeOut | null,
  };
}
