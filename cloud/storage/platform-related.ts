/**
 * Batch loads of the records that platform answers nest (countries, cities, companies with
 * their code names and types, warehouses, cargo types): one query per kind for a whole page,
 * never one per item.
 */
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { CargoKind } from '../domain/platform/enums.ts';
import type { PlatformDatabase } from './platform-schema.ts';

type WithId = {
  [K in keyof PlatformDatabase]: PlatformDatabase[K] extends { id: unknown } ? K : never;
}[keyof PlatformDatabase];
export type Row<T extends keyof PlatformDatabase> = Selectable<PlatformDatabase[T]>;

const present = (ids: Iterable<number | null | undefined>) => [
  ...new Set([...ids].filter((id): id is number => typeof id === 'number')),
];

/** The rows of `table` with these ids (nulls skipped), by id. */
export async function rowsById<T extends WithId>(
  db: Db,
  table: T,
  ids: Iterable<number | null | undefined>,
): Promise<Map<number, Row<T>>> {
  const wanted = present(ids);
  if (!wanted.length) return new Map();
  const rows = (await db
    .selectFrom(table as any)
    .selectAll()
    .where('id', 'in', wanted)
    .execute()) as Array<Row<T> & { id: number }>;
  return new Map(rows.map((r) => [r.id, r]));
}

export type CodeWithType = {
  id: number;
  title: string;
  companyId: number;
  cargoTypeId: number;
  cargoType: Row<'cargo_type'>;
};

/** Code names of these companies in id order, optionally only those of cargo types of some kinds. */
export async function codesOfCompanies(
  db: Db,
  companyIds: number[],
  kinds?: readonly CargoKind[],
): Promise<Map<number, CodeWithType[]>> {
  const out = new Map<number, CodeWithType[]>();
  if (!companyIds.length || kinds?.length === 0) return out;
  let q = db
    .selectFrom('company_code as c')
    .innerJoin('cargo_type as t', 't.id', 'c.cargoTypeId')
    .select(['c.id', 'c.title', 'c.companyId', 'c.cargoTypeId'])
    .where('c.companyId', 'in', present(companyIds))
    .orderBy('c.id');
  if (kinds) q = q.where('t.type', 'in', [...kinds]);
  const codes = await q.execute();
  const types = await rowsById(
    db,
    'cargo_type',
    codes.map((c) => c.cargoTypeId),
  );
  for (const c of codes) {
    const list = out.get(c.companyId) ?? [];
    list.push({ ...c, cargoType: types.get(c.cargoTypeId)! });
    out.set(c.companyId, list);
  }
  return out;
}

export interface CompanyExtras {
  codes: Map<number, CodeWithType[]>;
  deliveryTypes: Map<number, Array<{ id: number; title: string }>>;
  cargoTypes: Map<number, Array<Row<'cargo_type'>>>;
  countries: Map<number, Row<'platform_country'>>;
  cities: Map<number, Row<'platform_city'>>;
}

const group = <T extends { companyId: number }>(rows: T[]) => {
  const m = new Map<number, Array<Omit<T, 'companyId'>>>();
  for (const { companyId, ...rest } of rows) {
    const list = m.get(companyId);
    if (list) list.push(rest);
    else m.set(companyId, [rest]);
  }
  return m;
};

/** What a full company object shows beside its own columns: place, code names, delivery and cargo types. */
export async function companyExtras(db: Db, companies: Array<Row<'platform_company'>>): Promise<CompanyExtras> {
  const ids = companies.map((c) => c.id);
  if (!ids.length)
    return {
      codes: new Map(),
      deliveryTypes: new Map(),
      cargoTypes: new Map(),
      countries: new Map(),
      cities: new Map(),
    };
  const [codes, deliveryTypes, cargoTypes, countries, cities] = await Promise.all([
    codesOfCompanies(db, ids),
    db
      .selectFrom('company_delivery_type as l')
      .innerJoin('delivery_type as d', 'd.id', 'l.deliveryTypeId')
      .select(['l.companyId', 'd.id', 'd.title'])
      .where('l.companyId', 'in', ids)
      .orderBy('d.id')
      .execute(),
    db
      .selectFrom('company_cargo_type as l')
      .innerJoin('cargo_type as t', 't.id', 'l.cargoTypeId')
      .selectAll('t')
      .select('l.companyId')
      .where('l.companyId', 'in', ids)
      .orderBy('t.id')
      .execute(),
    rowsById(
      db,
      'platform_country',
      companies.map((c) => c.countryId),
    ),
    rowsById(
      db,
      'platform_city',
      companies.map((c) => c.cityId),
    ),
  ]);
  return {
    codes,
    deliveryTypes: group(deliveryTypes),
    cargoTypes: group(cargoTypes) as Map<number, Array<Row<'cargo_type'>>>,
    countries,
    cities,
  };
}
