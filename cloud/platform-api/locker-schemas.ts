/**
 * Request schemas of locker access through the platform (/api/v1/integrations/postomat) and
 * the platform paging rule they share with the marketplace. Where the platform's rules differ
 * from the Locker API's (required paging up to 500, plain-string ids, the order-creation limits)
 * they are written here; what the locker side then checks is the Locker API's own schemas.
 */
import { z } from 'zod';
import { integer, pageNumber, pageSize, qArray, qBool, qInt, qNum } from '../http/query.ts';
import { line, text, TEXT_MAX } from '../http/text.ts';
import { MAX_STORAGE_DAYS, ORDER_STATUSES } from '../domain/order-states.ts';
import { OrderFlags } from '../locker-api/schemas.ts';

/** The spec's platform lists: page and pageSize required, pageSize 1-500. */
export const PlatformPaging = {
  page: qInt(pageNumber()),
  pageSize: qInt(pageSize(500)),
};

export const StringIdParams = z.object({ id: line(TEXT_MAX.id).min(1) });

export const LockerPointQuery = {
  latitude: qNum(z.number().min(-90).max(90)).optional(),
  longitude: qNum(z.number().min(-180).max(180)).optional(),
};

export const PlatformPostomatListQuery = z.object({
  ...PlatformPaging,
  ids: qArray(line(TEXT_MAX.id)).optional(),
  cityId: line(TEXT_MAX.id).optional(),
  districtId: line(TEXT_MAX.id).optional(),
  withCity: qBool().default(false),
  withDistrict: qBool().default(false),
  ...LockerPointQuery,
});

export const PlatformCityListQuery = z.object({ ...PlatformPaging, withCountry: qBool().default(false) });

export const PlatformOrderCreateBody = z.object({
  toUserPhone: line(TEXT_MAX.phone).min(5),
  postomatId: line(TEXT_MAX.id),
  weight: z.number().min(0.001),
  days: integer().min(1).max(MAX_STORAGE_DAYS),
  customData: text(TEXT_MAX.customData).optional(),
  pay: z.boolean().optional(),
});

export const PlatformOrderListQuery = z.object({
  ...PlatformPaging,
  status: z.enum(ORDER_STATUSES).optional(),
  ...OrderFlags,
});
