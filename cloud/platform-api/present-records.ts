/**
 * Platform storage rows → the spec's JSON objects: flags become booleans, money major units,
 * JSON text parsed; internal columns (code counters, locker links, search text) stay inside.
 */
import { toMajor } from '../domain/money.ts';
import type { ClientRelations, ClientRow } from '../storage/platform-client-queries.ts';
import type { CompanyExtras, Row } from '../storage/platform-related.ts';
import type { z } from 'zod';
import type {
  CargoType,
  Client,
  ClientColumns,
  Company,
  CompanyColumns,
  PaymentOrder,
  PlatformCity,
  PlatformCountry,
  Supplier,
  Warehouse,
} from './responses.ts';

export const bool = (v: number) => v === 1;

type Titled = Pick<Row<'platform_country'>, 'titleRU' | 'titleCN' | 'titleEN' | 'titleKY'>;
const titles = (t: Titled) => ({ titleRU: t.titleRU, titleCN: t.titleCN, titleEN: t.titleEN, titleKY: t.titleKY });

/** `{ id, title }`, the spec's shape of a nested country, city or company where it names the fields. */
export const brief = (r: { id: number; title: string } | undefined | null) => (r ? { id: r.id, title: r.title } : null);

export function presentCountry(c: Row<'platform_country'>): z.output<typeof PlatformCountry> {
  return {
    id: c.id,
    title: c.title,
    ...titles(c),
    isActive: bool(c.isActive),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function presentCity(c: Row<'platform_city'>): z.output<typeof PlatformCity> {
  return {
    id: c.id,
    countryId: c.countryId,
    title: c.title,
    ...titles(c),
    lat: c.lat,
    lng: c.lng,
    isActive: bool(c.isActive),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function presentCargoType(t: Row<'cargo_type'>): z.output<typeof CargoType> {
  return {
    id: t.id,
    title: t.title,
    ...titles(t),
    type: t.type,
    isParent: bool(t.isParent),
    parentId: t.parentId,
    isActive: bool(t.isActive),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export function presentWarehouse(w: Row<'warehouse'>): z.output<typeof Warehouse> {
  return {
    id: w.id,
    companyId: w.companyId,
    title: w.title,
    titleCN: w.titleCN,
    titleEN: w.titleEN,
    titleKY: w.titleKY,
    address: w.address,
    lat: w.lat,
    lng: w.lng,
    schedule: w.schedule,
    schedules: w.schedules === null ? null : JSON.parse(w.schedules),
    cityId: w.cityId,
    countryId: w.countryId,
    isPickupPoint: bool(w.isPickupPoint),
    isActive: bool(w.isActive),
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

/** A company's own columns (no locker link, no code counter). */
export function presentCompanyColumns(c: Row<'platform_company'>): z.output<typeof CompanyColumns> {
  return {
    id: c.id,
    title: c.title,
    type: c.type,
    isActive: bool(c.isActive),
    isIntercity: bool(c.isIntercity),
    isInternational: bool(c.isInternational),
    isCleaning: bool(c.isCleaning),
    phone: c.phone,
    email: c.email,
    address: c.address,
    countryId: c.countryId,
    cityId: c.cityId,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** A logistics or courier company as the integrations show it: with country, city, codes, delivery and cargo types. */
export function presentCompany(c: Row<'platform_company'>, x: CompanyExtras): z.output<typeof Company> {
  const country = c.countryId === null ? undefined : x.countries.get(c.countryId);
  const city = c.cityId === null ? undefined : x.cities.get(c.cityId);
  return {
    ...presentCompanyColumns(c),
    country: country ? presentCountry(country) : null,
    city: city ? presentCity(city) : null,
    codes: (x.codes.get(c.id) ?? []).map((k) => ({ id: k.id, title: k.title, cargoTypeId: k.cargoTypeId })),
    deliveryTypes: x.deliveryTypes.get(c.id) ?? [],
    cargoTypes: (x.cargoTypes.get(c.id) ?? []).map(presentCargoType),
  };
}

export function presentClientColumns(c: ClientRow): z.output<typeof ClientColumns> {
  return {
    id: c.id,
    name: c.name,
    phone: c.phone,
    code: c.code,
    address: c.address,
    isActive: bool(c.isActive),
    companyId: c.companyId,
    countryId: c.countryId,
    cityId: c.cityId,
    deliveryWarehouseCompanyId: c.deliveryWarehouseCompanyId,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/**
 * A client with the spec's nested objects. `withCargoType` (the search's `cargoTypes` filter was
 * given) adds each code name's cargo type.
 */
export function presentClient(c: ClientRow, rel: ClientRelations, withCargoType = false): z.output<typeof Client> {
  const of = <T>(m: Map<number, T>, id: number | null) => (id === null ? undefined : m.get(id));
  const company = rel.companies.get(c.companyId);
  return {
    ...presentClientColumns(c),
    country: brief(of(rel.countries, c.countryId)),
    city: brief(of(rel.cities, c.cityId)),
    company: company
      ? {
          id: company.id,
          title: company.title,
          codes: (rel.codes.get(c.companyId) ?? []).map((k) => ({
            id: k.id,
            title: k.title,
            ...(withCargoType ? { cargoType: presentCargoType(k.cargoType) } : {}),
          })),
        }
      : null,
    deliveryWarehouseCompany: brief(of(rel.companies, c.deliveryWarehouseCompanyId)),
  };
}

export function presentPaymentOrder(o: Row<'payment_order'>): z.output<typeof PaymentOrder> {
  return {
    id: o.id,
    companyId: o.companyId,
    clientId: o.clientId,
    amount: toMajor(o.amount),
    currency: o.currency,
    isPaid: bool(o.isPaid),
    paidAt: o.paidAt,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

export function presentSupplier(s: Row<'supplier'>): z.output<typeof Supplier> {
  return {
    id: s.id,
    name: s.name,
    phone: s.phone,
    address: s.address,
    isActive: bool(s.isActive),
    companyId: s.companyId,
    cityId: s.cityId,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
