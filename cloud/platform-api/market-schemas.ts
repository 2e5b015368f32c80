/** Request schemas of the marketplace (/api/v1/integrations/market-company). */
import { z } from 'zod';
import { integer, qArray, qBool, qInt } from '../http/query.ts';
import { isLockerPhone, LOCKER_PHONE } from '../domain/phone.ts';
import { LockerPointQuery, PlatformPaging } from './locker-schemas.ts';

export const PickupPointListQuery = z.object({
  ...PlatformPaging,
  ids: qArray(qInt(integer().min(1))).optional(),
  cityId: qInt(integer().min(1)).optional(),
  countryId: qInt(integer().min(1)).optional(),
  withCity: qBool().default(false),
  withCountry: qBool().default(false),
  ...LockerPointQuery,
});

export const PlaceReadQuery = z.object({ withCity: qBool().default(false), withCountry: qBool().default(false) });
export const MarketCityListQuery = z.object({ ...PlatformPaging, withCountry: qBool().default(false) });

export const TrackCodeParams = z.object({ trackCode: z.string().min(1) });

const Party = z.object({
  name: z.string(),
  phone: z.string().trim().min(1),
  address: z.string(),
  country: integer().min(1),
  city: integer().min(1),
});

const required = (ctx: z.core.$RefinementCtx, field: string) =>
  ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [field], message: `must have required property '${field}'` });

export const MarketParcelBody = z
  .object({
    deliveryMethod: z.enum(['POSTOMAT', 'PICKUP']),
    postomatId: z.string().min(1).optional(),
    warehouseId: integer().min(1).optional(),
    createPostomatOrder: z.boolean().default(false),
    trackCode: z.string().trim().min(1).max(100).optional(),
    weight: z.number().min(0.01),
    price: z.number().min(0).max(1_000_000_000_000).default(0),
    currency: z.string().length(3).pipe(z.string().regex(/^[A-Za-z]{3}$/)),
    receiver: Party,
    sender: Party,
  })
  .superRefine((b, ctx) => {
    if (b.deliveryMethod === 'POSTOMAT' && b.postomatId === undefined) required(ctx, 'postomatId');
    if (b.deliveryMethod === 'PICKUP' && b.warehouseId === undefined) required(ctx, 'warehouseId');
    // The locker order is for the receiver's phone, as the Locker API takes recipients' phones.
    if (b.deliveryMethod === 'POSTOMAT' && b.createPostomatOrder && !isLockerPhone(b.receiver.phone)) {
      ctx.addIssue({ code: 'custom', path: ['receiver', 'phone'], message: `must match pattern "${LOCKER_PHONE.source}" (at most 20 characters) for a locker order` });
    }
  });
export type MarketParcelBody = z.output<typeof MarketParcelBody>;

export const RedirectBody = z
  .object({ toWarehouseId: integer().min(1).optional(), toPostomatId: z.string().min(1).optional() })
  .superRefine((b, ctx) => {
    if ((b.toWarehouseId === undefined) === (b.toPostomatId === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: "must have exactly one of properties 'toWarehouseId', 'toPostomatId'" });
    }
  });
