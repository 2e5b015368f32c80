/** Request schemas of the Locker API: the single source of its validation and input types. */
import { z } from 'zod';
import { cuid2, integer, optionalPaging, pageNumber, pageSize, qArray, qBool, qInt, qNum } from '../http/query.ts';
import { line, text, TEXT_MAX } from '../http/text.ts';
import { MAX_STORAGE_DAYS, ORDER_STATUSES } from '../domain/order-states.ts';
import { LOCKER_PHONE, LOCKER_PHONE_MAX } from '../domain/phone.ts';
import { CellSize, OrderKind } from '../../shared/mqtt/schemas.ts';
import { DEFAULT_RESERVE_HOURS, DIMENSION_MAX_MM, MAX_RESERVE_DAYS } from '../domain/cell-sizes.ts';

export const IdParams = z.object({ id: cuid2() });
export const PostomatIdParams = z.object({ postomatId: cuid2() });
export const ShortIdParams = z.object({ shortId: line(TEXT_MAX.shortId).min(1) });

/** A recipient phone as locker orders take it. */
export const lockerPhone = () => z.string().trim().max(LOCKER_PHONE_MAX).regex(LOCKER_PHONE);

export const CreateOrderBody = z
  .object({
    toUserPhone: lockerPhone().meta({ description: 'the recipient: `+` and digits', example: '+996555123456' }),
    postomatId: cuid2().meta({ description: 'an existing locker id; one that names no locker is a 500 (the spec)' }),
    sendMessage: z
      .boolean()
      .meta({ description: 'true: the recipient gets an SMS with the pickup code after placement' }),
    days: integer().min(1).max(MAX_STORAGE_DAYS).optional(),
    weight: z.number().min(0).optional(),
    customData: text(TEXT_MAX.customData)
      .optional()
      .meta({ description: 'your reference, returned as given', example: 'my-ref-1' }),
    pay: z.boolean().optional().meta({ description: 'true: pay the order from the company balance' }),
    // Size-aware booking (issue 22), an extension: absent, the order is the spec's.
    cellSize: CellSize.optional().meta({
      description: 'extension: the cell size the parcel needs (it or a larger one); not with `dimensions`',
    }),
    dimensions: z
      .object({
        lengthMm: integer().min(1).max(DIMENSION_MAX_MM),
        widthMm: integer().min(1).max(DIMENSION_MAX_MM),
        heightMm: integer().min(1).max(DIMENSION_MAX_MM),
      })
      .optional()
      .meta({
        description:
          "extension: the parcel's outer dimensions in millimetres; the smallest cell size they (and `weight`, in kg) fit is booked; not with `cellSize`",
      }),
    reserveUntil: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({
        description: `extension, sized orders only: until when the cell is held (default ${DEFAULT_RESERVE_HOURS} hours from now, at most ${MAX_RESERVE_DAYS} days); unplaced by then, the order becomes EXPIRED`,
        example: '2026-01-18T09:30:00.000Z',
      }),
    kind: OrderKind.optional().meta({
      description:
        'extension: RETURN makes `toUserPhone` the sender, who drops the parcel off with the DOWN code (sent by SMS at creation when `sendMessage` is true); a courier collects it with the UP code. Default DELIVERY',
    }),
  })
  .superRefine((b, ctx) => {
    if (b.cellSize !== undefined && b.dimensions !== undefined)
      ctx.addIssue({ code: 'custom', path: ['dimensions'], message: 'must not be given with cellSize' });
    if (b.reserveUntil !== undefined && b.cellSize === undefined && b.dimensions === undefined)
      ctx.addIssue({ code: 'custom', path: ['reserveUntil'], message: 'must come with cellSize or dimensions' });
  });
export type CreateOrderBody = z.infer<typeof CreateOrderBody>;

export const OrderFlags = {
  withToUser: qBool().optional(),
  withCell: qBool().optional(),
  withPostomat: qBool().optional(),
  withCurrentStatus: qBool().optional(),
  withStatuses: qBool().optional(),
  withRent: qBool().optional(),
  withPasswords: qBool().optional(),
};
export const OrderReadQuery = z.object(OrderFlags);

export const OrderListQuery = z.object({
  page: qInt(pageNumber()).default(1),
  pageSize: qInt(pageSize()).default(10),
  status: z.enum(ORDER_STATUSES).optional(),
  ...OrderFlags,
});

const PostomatListCommon = {
  ...optionalPaging,
  cityId: cuid2().optional(),
  districtId: cuid2().optional(),
  withCity: qBool().default(false),
  withDistrict: qBool().default(false),
  latitude: qNum(z.number().min(-90).max(90)).optional(),
  longitude: qNum(z.number().min(-180).max(180)).optional(),
};
export const PostomatListQuery = z.object({
  ...PostomatListCommon,
  ids: qArray(cuid2()).optional(),
  withFreeCells: qBool().optional(),
});
export const PublicPostomatListQuery = z.object(PostomatListCommon);

export const PostomatReadQuery = z.object({
  withCity: qBool().default(false),
  withCells: qBool().default(false),
  withBoards: qBool().default(false),
});

export const CountryQuery = z.object({ withCities: qBool().default(false) });
export const CityListQuery = z.object({ ...optionalPaging, withCountry: qBool().default(false) });
export const CityReadQuery = z.object({ withCountry: qBool().default(false) });
export const DistrictListQuery = z.object({ ...optionalPaging, cityId: cuid2().optional() });
