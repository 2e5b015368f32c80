/**
 * Response schemas of the Locker API: what its routes send, written once. The presenters
 * (present.ts) are typed by them, the routes carry them (route `response`), and the OpenAPI
 * document is generated from them, so the document cannot describe another shape than the one sent.
 * The spec says clients must tolerate unknown fields, so the document leaves objects open; the
 * contract tests close them to catch a field sent but not written here.
 */
import { z } from 'zod';
import { CLOUD_ORDER_STATUSES, CODE_TYPES } from '../domain/order-states.ts';
import { CellSize } from '../../shared/mqtt/schemas.ts';

/** Timestamps leave storage as ISO 8601 strings. */
export const isoTime = () => z.string().meta({ format: 'date-time', example: '2026-01-15T09:30:00.000Z' });
const id = (example = 'ckx1a2b3c4d5e6f7g8h9') => z.string().meta({ description: 'cuid2', example });
const money = () => z.number().meta({ description: 'major units (e.g. 150.5)' });

/** The spec's statuses, and EXPIRED: a sized order whose reservation lapsed unplaced (an extension, issue 22). */
export const OrderStatusName = z.enum(CLOUD_ORDER_STATUSES).meta({ id: 'OrderStatusName' });

export const OrderCode = z
  .object({
    id: id(),
    type: z.enum(CODE_TYPES),
    password: z
      .string()
      .regex(/^\d{4}$/)
      .meta({ description: 'four digits', example: '4821' }),
    orderId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({
    id: 'OrderCode',
    description:
      'A code of an order: DOWN places the parcel, UP collects it, SUBTRACT removes it without handing it over.',
  });

export const OrderStatusRecord = z
  .object({
    id: id(),
    type: OrderStatusName,
    orderId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'OrderStatusRecord' });

export const Order = z
  .object({
    id: id(),
    postomatId: id(),
    companyId: id(),
    toUserId: id(),
    cellId: id().nullable().meta({ description: 'filled after placement' }),
    currentStatusId: id()
      .nullable()
      .meta({ description: 'id of the current status record; its name needs `withCurrentStatus=true`' }),
    days: z.int().meta({ description: 'storage period in days, counted from placement' }),
    weight: z.number(),
    customData: z.string().nullable().meta({ description: "the caller's string, returned as given" }),
    sendMessage: z.boolean(),
    isActive: z.boolean(),
    price: money(),
    deliveryPrice: money(),
    paidAmount: money(),
    notPaidAmount: money().meta({ description: 'while above 0 the locker does not hand the parcel out' }),
    promoCodeAmount: money(),
    startDateTime: isoTime().nullable(),
    endDateTime: isoTime().nullable(),
    // Extension (issue 22): present on sized orders only, so the spec's orders answer as before.
    cellSize: CellSize.optional().meta({
      description:
        "extension, sized orders only: the cell size held (the smallest the parcel fits); the courier's DOWN code opens a cell of this size or the next larger free one, never a smaller one",
    }),
    reserveUntil: isoTime().optional().meta({
      description:
        'extension, sized orders only: the cell is held until then; unplaced by then, the order becomes EXPIRED',
    }),
    createdAt: isoTime(),
    updatedAt: isoTime(),
    kind: z
      .literal('RETURN')
      .optional()
      .meta({ description: 'extension: present only on a return (created with `kind: RETURN`); absent on a delivery' }),
  })
  .meta({ id: 'Order' });

export const Postomat = z
  .object({
    id: id(),
    incrementalid: z.int(),
    title: z.string(),
    address: z.string().nullable(),
    description: z.string().nullable(),
    imgUrl: z.string().nullable(),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    schedule: z.string().nullable(),
    shortId: z.string(),
    isActive: z.boolean(),
    isConnected: z.boolean(),
    cityId: id().nullable(),
    districtId: id().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Postomat' });

export const Cell = z
  .object({
    id: id(),
    title: z.string(),
    number: z.int(),
    size: CellSize,
    isActive: z.boolean(),
    isOpen: z.boolean(),
    forRentAvailable: z.boolean(),
    postomatId: id(),
    boardId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Cell' });

export const Board = z
  .object({
    id: id(),
    title: z.string(),
    address: z.int().meta({ description: 'bus address of the lock board (0-15)' }),
    postomatId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Board' });

export const Country = z
  .object({ id: id(), title: z.string(), isActive: z.boolean(), createdAt: isoTime(), updatedAt: isoTime() })
  .meta({ id: 'Country' });
export const City = z
  .object({
    id: id(),
    title: z.string(),
    isActive: z.boolean(),
    countryId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'City' });
export const District = z
  .object({
    id: id(),
    title: z.string(),
    isActive: z.boolean(),
    cityId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'District' });

export const Recipient = z
  .object({ id: id(), phone: z.string(), createdAt: isoTime(), updatedAt: isoTime() })
  .meta({ id: 'Recipient' });

/** An order as reads show it: the nested objects are present only when their flag asks for them. */
export const OrderView = Order.extend({
  toUser: Recipient.nullable().optional().meta({ description: 'with `withToUser=true`' }),
  cell: Cell.extend({ postomat: Postomat.nullable() })
    .nullable()
    .optional()
    .meta({ description: 'with `withCell=true`; null before placement' }),
  postomat: Postomat.nullable().optional().meta({ description: 'with `withPostomat=true`' }),
  currentStatus: OrderStatusRecord.nullable().optional().meta({
    description:
      'with `withCurrentStatus=true`: the status name (CREATED, DELIVERED, COMPLETED, SUBTRACTED; EXPIRED for a sized order whose reservation lapsed)',
  }),
  statuses: z
    .array(OrderStatusRecord)
    .optional()
    .meta({ description: 'with `withStatuses=true`: the history, oldest first' }),
  rent: z.null().optional().meta({ description: 'with `withRent=true`; lockers here rent no cells' }),
  passwords: z.array(OrderCode).meta({
    description: "always only the DOWN code (the UP code is the recipient's secret); `withPasswords` has no effect",
  }),
}).meta({ id: 'OrderView' });

const Sums = z.object({
  price: money(),
  deliveryPrice: money(),
  paidAmount: money(),
  notPaidAmount: money(),
  promoCodeAmount: money(),
});

export const OrderPage = z
  .object({
    total: z.int().meta({ description: 'orders matching the filter' }),
    data: z.array(OrderView),
    aggregate: z.object({ _sum: Sums }).meta({ description: 'sums over the whole selection' }),
    expiredAggregate: z
      .object({ _sum: Sums, _count: z.int() })
      .meta({ description: 'orders in DELIVERED whose storage period has expired' }),
  })
  .meta({ id: 'OrderPage' });

export const PostomatListItem = Postomat.extend({
  city: City.nullable().optional().meta({ description: 'with `withCity=true`' }),
  district: District.nullable().optional().meta({ description: 'with `withDistrict=true`' }),
  cells: z
    .array(Cell)
    .optional()
    .meta({ description: 'with `withFreeCells=true` and no coordinates: cells without a current placement' }),
  distance: z.number().optional().meta({ description: 'kilometres, when `latitude` and `longitude` are given' }),
});
export const PostomatPage = z.object({ total: z.int(), data: z.array(PostomatListItem) }).meta({ id: 'PostomatPage' });

export const PostomatView = Postomat.extend({
  city: City.nullable().optional().meta({ description: 'with `withCity=true`' }),
  cells: z
    .array(Cell.extend({ board: Board.nullable() }))
    .optional()
    .meta({ description: 'with `withCells=true`' }),
  boards: z
    .array(Board.extend({ cells: z.array(Cell) }))
    .optional()
    .meta({ description: 'with `withBoards=true`' }),
}).meta({ id: 'PostomatView' });

export const CountryWithCities = Country.extend({
  cities: z.array(City).optional().meta({ description: 'with `withCities=true`' }),
});
export const CityWithCountry = City.extend({
  country: Country.nullable().optional().meta({ description: 'with `withCountry=true`' }),
});

export const CountryPage = z.object({ total: z.int(), data: z.array(CountryWithCities) });
export const CityPage = z.object({ total: z.int(), data: z.array(CityWithCountry) });
export const DistrictPage = z.object({ total: z.int(), data: z.array(District) });

/** The Locker API answers a missing locker or city with null rather than 404 (the spec). */
export const PostomatOrNull = PostomatView.nullable();
export const CityOrNull = CityWithCountry.nullable();
export const FreeCells = z.array(Cell);

export type OrderOut = z.output<typeof Order>;
export type OrderCodeOut = z.output<typeof OrderCode>;
export type PostomatOut = z.output<typeof Postomat>;
export type CellOut = z.output<typeof Cell>;
export type BoardOut = z.output<typeof Board>;
export type CountryOut = z.output<typeof Country>;
export type CityOut = z.output<typeof City>;
export type DistrictOut = z.output<typeof District>;
