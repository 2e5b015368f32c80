/**
 * Courier and logistics companies (GET /api/v1/integrations/courier-company/{id},
 * /logistic-company/list, /logistic-company/countries, /logistic-company/{id}): active
 * companies of the type asked for, as full company objects, else `null`.
 */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import type { Db } from '../storage/database.ts';
import type { CompanyType } from '../domain/platform/enums.ts';
import { companyExtras, type Row } from '../storage/platform-related.ts';
import {
  activeCountriesWithCities,
  findActiveCompany,
  listLogisticCompanies,
} from '../storage/platform-company-queries.ts';
import { platformRoute } from './route.ts';
import { LogisticListQuery, RecordIdParams } from './read-schemas.ts';
import { presentCity, presentCompany, presentCountry } from './present-records.ts';
import { Company, CountryWithCities } from './responses.ts';
import { z } from 'zod';

async function presentCompanies(db: Db, companies: Array<Row<'platform_company'>>) {
  const extras = await companyExtras(db, companies);
  return companies.map((c) => presentCompany(c, extras));
}

async function oneCompany(db: Db, id: number, type: CompanyType) {
  const company = await findActiveCompany(db, id, type);
  return company ? (await presentCompanies(db, [company]))[0] : null;
}

export function companiesRoutes(r: Router, deps: AppDeps): void {
  const { db } = deps;

  r.get(
    '/courier-company/:id',
    platformRoute({ params: RecordIdParams, response: Company.nullable() }, ({ params }) =>
      oneCompany(db, params.id, 'COURIER'),
    ),
  );

  r.get(
    '/logistic-company/list',
    platformRoute({ query: LogisticListQuery, response: z.array(Company) }, async ({ query }) =>
      presentCompanies(db, await listLogisticCompanies(db, query)),
    ),
  );

  r.get(
    '/logistic-company/countries',
    platformRoute({ response: z.object({ total: z.int(), data: z.array(CountryWithCities) }) }, async () => {
      const data = (await activeCountriesWithCities(db)).map(({ country, cities }) => ({
        ...presentCountry(country),
        cities: cities.map(presentCity),
      }));
      return { total: data.length, data };
    }),
  );

  r.get(
    '/logistic-company/:id',
    platformRoute({ params: RecordIdParams, response: Company.nullable() }, ({ params }) =>
      oneCompany(db, params.id, 'LOGIST'),
    ),
  );
}
