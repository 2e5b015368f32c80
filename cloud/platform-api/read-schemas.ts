/**
 * Request schemas of the integrations' read side (clients, companies, suppliers, parcel and
 * cargo lists) and the public cargo types. Enums come from domain/platform/enums.ts; an unknown
 * value is a 400 in Fastify's wording.
 */
import { z } from 'zod';
import { integer, optionalPaging, qArray, qBool, qInt } from '../http/query.ts';
import { CARGO_KINDS, CARGO_STATUSES, PARCEL_STATUSES } from '../domain/platform/enums.ts';

/** Platform ids and client codes are 32-bit integer columns: a larger number names nothing and must not reach the database. */
export const INT4_MAX = 2_147_483_647;
const int = () => integer().max(INT4_MAX);

/** A platform record id in a path: an integer >= 1. */
export const RecordIdParams = z.object({ id: qInt(int().min(1)) });

const cargoKinds = () => qArray(z.enum(CARGO_KINDS));

export const ClientSearchQuery = z.object({
  search: z.string(),
  cargoTypes: cargoKinds().optional(),
});

export const LogisticListQuery = z.object({
  isIntercity: qBool().optional(),
  isInternational: qBool().optional(),
  isCleaning: qBool().optional(),
});

export const SupplierByPhoneQuery = z.object({ phone: z.string() });

/** What every parcel-shaped list takes: search, statuses, isPayed. */
const searchable = {
  search: z.string().optional(),
  isPayed: qBool().optional(),
};

/** supplier/{id}/parcels: all parcels unless both page and pageSize are given. */
export const SupplierParcelsQuery = z.object({
  ...optionalPaging,
  ...searchable,
  statuses: qArray(z.enum(PARCEL_STATUSES)).optional(),
});

const listCommon = {
  page: qInt(integer().min(1)).default(1),
  pageSize: qInt(integer().min(1)).default(10),
  code: qInt(int().min(1)).optional(),
  codes: qArray(qInt(int())).optional(),
  arrivedAtFinal: qBool().optional(),
  ...searchable,
};

export const ParcelListQuery = z.object({
  ...listCommon,
  statuses: qArray(z.enum(PARCEL_STATUSES)).optional(),
  strictArrived: qBool().optional(),
});

export const CargoListQuery = z.object({
  ...listCommon,
  statuses: qArray(z.enum(CARGO_STATUSES)).optional(),
  cargoTypes: cargoKinds().optional(),
});

export const CargoTypesQuery = z.object({ types: cargoKinds().optional() });
