/** Companies and places as the integrations read them: only active records. */
import type { Db } from './database.ts';
import type { CompanyType } from '../domain/platform/enums.ts';
import type { Row } from './platform-related.ts';
import { groupBy } from './batches.ts';

export interface CompanyFlagFilter {
  isIntercity?: boolean;
  isInternational?: boolean;
  isCleaning?: boolean;
}

/** Active logistics companies, by id; each flag given selects companies with (true) or without (false) it. */
export function listLogisticCompanies(db: Db, flags: CompanyFlagFilter): Promise<Array<Row<'platform_company'>>> {
  let q = db.selectFrom('platform_company').selectAll().where('type', '=', 'LOGIST').where('isActive', '=', 1);
  for (const name of ['isIntercity', 'isInternational', 'isCleaning'] as const) {
    const v = flags[name];
    if (v !== undefined) q = q.where(name, '=', v ? 1 : 0);
  }
  return q.orderBy('id').execute();
}

/** The active company of this type with this id. */
export function findActiveCompany(db: Db, id: number, type: CompanyType): Promise<Row<'platform_company'> | undefined> {
  return db
    .selectFrom('platform_company')
    .selectAll()
    .where('id', '=', id)
    .where('type', '=', type)
    .where('isActive', '=', 1)
    .executeTakeFirst();
}

/** Active countries, each with its active cities, by id. */
export async function activeCountriesWithCities(db: Db) {
  const [countries, cities] = await Promise.all([
    db.selectFrom('platform_country').selectAll().where('isActive', '=', 1).orderBy('id').execute(),
    db.selectFrom('platform_city').selectAll().where('isActive', '=', 1).orderBy('id').execute(),
  ]);
  const byCountry = groupBy(cities, (c) => c.countryId);
  return countries.map((country) => ({ country, cities: byCountry.get(country.id) ?? [] }));
}
