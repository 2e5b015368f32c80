/**
 * Request schemas of the integrations' read side (clients, companies, suppliers, parcel and
 * cargo lists) and the public cargo types. Enums come from domain/platform/enums.ts; an unknown
 * value is a 400 in Fastify's wording.
 */
import { z } from 'zod';
import { int4, int4Id, optionalPaging, pageNumber, pageSize, qArray, qBool, qInt } from '../http/query.ts';
import { line, TEXT_MAX } from '../http/text.ts';
import { CARGO_KINDS, CARGO_STATUSES, PARCEL_STATUSES } from '../domain/platform/enums.ts';

/** A platform record id in a path: an integer >= 1 (an int4 column: a larger number names nothing). */
export const RecordIdParams = z.object({ id: qInt(int4Id()) });

const cargoKinds = () => qArray(z.enum(CARGO_KINDS));

export const ClientSearchQuery = z.object({
  search: line(TEXT_MAX.search),
  cargoTypes: cargoKinds().optional(),
});

export const LogisticListQuery = z.object({
  isIntercity: qBool().optional(),
  isInternational: qBool().optional(),
  isCleaning: qBool().optional(),
});

export const SupplierByPhoneQuery = z.object({ phone: line(TEXT_MAX.phone) });

/** What every parcel-shaped list takes: search, statuses, isPayed. */
const searchable = {
  search: line(TEXT_MAX.search).optional(),
  isPayed: qBool().optional(),
};

/** supplier/{id}/parcels: all parcels unless both page and pageSize are given. */
export const SupplierParcelsQuery = z.object({
  ...optionalPaging,
  ...searchable,
  statuses: qArray(z.enum(PARCEL_STATUSES)).optional(),
});

const listCommon = {
  page: qInt(pageNumber()).default(1),
  pageSize: qInt(pageSize()).default(10),
  code: qInt(int4Id()).optional(),
  codes: qArray(qInt(int4())).optional(),
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
