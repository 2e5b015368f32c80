/** Request schemas of the marketplace (/api/v1/integrations/market-company). */
import { z } from 'zod';
import { int4Id, qArray, qBool, qInt } from '../http/query.ts';
import { line, TEXT_MAX } from '../http/text.ts';
import { isLockerPhone, LOCKER_PHONE } from '../domain/phone.ts';
import { LockerPointQuery, PlatformPaging } from './locker-schemas.ts';

export const PickupPointListQuery = z.object({
  ...PlatformPaging,
  ids: qArray(qInt(int4Id())).optional(),
  cityId: qInt(int4Id()).optional(),
  countryId: qInt(int4Id()).optional(),
  withCity: qBool().default(false),
  withCountry: qBool().default(false),
  ...LockerPointQuery,
});

export const PlaceReadQuery = z.object({ withCity: qBool().default(false), withCountry: qBool().default(false) });
export const MarketCityListQuery = z.object({ ...PlatformPaging, withCountry: qBool().default(false) });

export const TrackCodeParams = z.object({ trackCode: line(TEXT_MAX.trackCode).min(1) });

const Party = z.object({
  name: line(TEXT_MAX.title),
  phone: line(TEXT_MAX.phone, { trim: true }).min(1),
  address: line(TEXT_MAX.address),
  country: int4Id(),
  city: int4Id(),
});

const required = (ctx: z.core.$RefinementCtx, field: string) =>
  ctx.addIssue({
    code: 'invalid_type',
    expected: 'string',
    input: undefined,
    path: [field],
    message: `must have required property '${field}'`,
  });

export const MarketParcelBody = z
  .object({
    deliveryMethod: z.enum(['POSTOMAT', 'PICKUP']),
    postomatId: line(TEXT_MAX.id).min(1).optional(),
    warehouseId: int4Id().optional(),
    createPostomatOrder: z.boolean().default(false),
    trackCode: line(TEXT_MAX.trackCode, { trim: true }).min(1).optional(),
    weight: z.number().min(0.01),
    price: z.number().min(0).max(1_000_000_000_000).default(0),
    currency: z
      .string()
      .length(3)
      .pipe(z.string().regex(/^[A-Za-z]{3}$/)),
    receiver: Party,
    sender: Party,
  })
  .superRefine((b, ctx) => {
    if (b.deliveryMethod === 'POSTOMAT' && b.postomatId === undefined) required(ctx, 'postomatId');
    if (b.deliveryMethod === 'PICKUP' && b.warehouseId === undefined) required(ctx, 'warehouseId');
    // The locker order is for the receiver's phone, as the Locker API takes recipients' phones.
    if (b.deliveryMethod === 'POSTOMAT' && b.createPostomatOrder && !isLockerPhone(b.receiver.phone)) {
      ctx.addIssue({
        code: 'custom',
        path: ['receiver', 'phone'],
        message: `must match pattern "${LOCKER_PHONE.source}" (at most 20 characters) for a locker order`,
      });
    }
  });
export type MarketParcelBody = z.output<typeof MarketParcelBody>;

export const RedirectBody = z
  .object({ toWarehouseId: int4Id().optional(), toPostomatId: line(TEXT_MAX.id).min(1).optional() })
  .superRefine((b, ctx) => {
    if ((b.toWarehouseId === undefined) === (b.toPostomatId === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: "must have exactly one of properties 'toWarehouseId', 'toPostomatId'",
      });
    }
  });
