/**
 * Response schemas of the Platform API, written once: the routes carry them (route `response`),
 * the presenters are typed by them where they build a whole object, and the OpenAPI document is
 * generated from them. Locker-side answers through the platform reuse the Locker API's schemas.
 */
import { z } from 'zod';
import {
  CARGO_KINDS,
  CARGO_STATUSES,
  COMPANY_TYPES,
  DELIVERY_METHODS,
  MARKET_STATUSES,
  PARCEL_STATUSES,
  WEBHOOK_SUBTYPES,
  WEBHOOK_TYPES,
} from '../domain/platform/enums.ts';
import { isoTime, Order, OrderCode } from '../locker-api/responses.ts';

const id = () => z.int().meta({ example: 1 });
const money = () => z.number().meta({ description: 'major units' });
const titles = {
  titleRU: z.string().nullable(),
  titleCN: z.string().nullable(),
  titleEN: z.string().nullable(),
  titleKY: z.string().nullable(),
};
const brief = z.object({ id: id(), title: z.string() });

export const TokenPair = z
  .object({
    accessToken: z.string().meta({ description: 'user JWT, 1 hour' }),
    refreshToken: z.string().meta({ description: '10 days; refresh returns a new pair' }),
  })
  .meta({ id: 'TokenPair' });

export const Message = z.object({ message: z.string() }).meta({ id: 'Message' });

export const ApiKey = z
  .object({
    id: id(),
    title: z.string(),
    key: z
      .string()
      .meta({ description: 'send as `x-api-token` (or `Authorization: Bearer`) to /api/v1/integrations/*' }),
    companyId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'ApiKey' });
export const ApiKeyPage = z.object({ total: z.int(), data: z.array(ApiKey) });

export const Webhook = z
  .object({
    id: id(),
    type: z.enum(WEBHOOK_TYPES),
    subtype: z.enum(WEBHOOK_SUBTYPES).nullable(),
    url: z.string(),
    payloadTemplate: z.string().nullable(),
    apiKey: z.string().nullable().meta({ description: 'sent as the `x-api-key` header of each delivery when set' }),
    method: z.literal('POST'),
    companyId: id(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Webhook' });
export const WebhookPage = z.object({ total: z.int(), data: z.array(Webhook) });

export const PlatformCountry = z
  .object({ id: id(), title: z.string(), ...titles, isActive: z.boolean(), createdAt: isoTime(), updatedAt: isoTime() })
  .meta({ id: 'PlatformCountry' });
export const PlatformCity = z
  .object({
    id: id(),
    countryId: id(),
    title: z.string(),
    ...titles,
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    isActive: z.boolean(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'PlatformCity' });

export const CargoType = z
  .object({
    id: id(),
    title: z.string(),
    ...titles,
    type: z.enum(CARGO_KINDS),
    isParent: z.boolean(),
    parentId: z.int().nullable(),
    isActive: z.boolean(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'CargoType' });
export const CargoTypeWithDeliveryTypes = CargoType.extend({ deliveryTypes: z.array(brief) });

export const Warehouse = z
  .object({
    id: id(),
    companyId: id(),
    title: z.string(),
    titleCN: z.string().nullable(),
    titleEN: z.string().nullable(),
    titleKY: z.string().nullable(),
    address: z.string().nullable(),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    schedule: z.string().nullable(),
    schedules: z.unknown(),
    cityId: z.int().nullable(),
    countryId: z.int().nullable(),
    isPickupPoint: z.boolean(),
    isActive: z.boolean(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Warehouse' });

export const CompanyColumns = z
  .object({
    id: id(),
    title: z.string(),
    type: z.enum(COMPANY_TYPES),
    isActive: z.boolean(),
    isIntercity: z.boolean(),
    isInternational: z.boolean(),
    isCleaning: z.boolean(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    address: z.string().nullable(),
    countryId: z.int().nullable(),
    cityId: z.int().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'CompanyColumns' });

export const Company = CompanyColumns.extend({
  country: PlatformCountry.nullable(),
  city: PlatformCity.nullable(),
  codes: z.array(z.object({ id: id(), title: z.string(), cargoTypeId: z.int() })),
  deliveryTypes: z.array(brief),
  cargoTypes: z.array(CargoType),
}).meta({ id: 'Company' });

export const ClientColumns = z
  .object({
    id: id(),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    code: z.int().meta({ description: 'unique within the company; shown to recipients as `<code_name>-<code>`' }),
    address: z.string().nullable(),
    isActive: z.boolean(),
    companyId: id(),
    countryId: z.int().nullable(),
    cityId: z.int().nullable(),
    deliveryWarehouseCompanyId: z.int().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'ClientColumns' });

export const Client = ClientColumns.extend({
  country: brief.nullable(),
  city: brief.nullable(),
  company: z
    .object({
      id: id(),
      title: z.string(),
      codes: z.array(
        z.object({
          id: id(),
          title: z.string(),
          cargoType: CargoType.optional().meta({ description: 'when the search filter `cargoTypes` was given' }),
        }),
      ),
    })
    .nullable(),
  deliveryWarehouseCompany: brief.nullable(),
}).meta({ id: 'Client' });

export const Supplier = z
  .object({
    id: id(),
    name: z.string().nullable(),
    phone: z.string(),
    address: z.string().nullable(),
    isActive: z.boolean(),
    companyId: id(),
    cityId: z.int().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Supplier' });

export const PaymentOrder = z
  .object({
    id: id(),
    companyId: id(),
    clientId: z.int().nullable(),
    amount: money(),
    currency: z.string(),
    isPaid: z.boolean(),
    paidAt: isoTime().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'PaymentOrder' });

const ShipmentStatus = z
  .object({
    id: id(),
    status: z.string(),
    warehouseId: z.int().nullable(),
    originWarehouseId: z.int().nullable(),
    destinationWarehouseId: z.int().nullable(),
    originCityId: z.int().nullable(),
    destinationCityId: z.int().nullable(),
    userId: z.int().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'ShipmentStatus' });

const shipmentShared = {
  clientId: z.int().nullable(),
  companyId: id(),
  supplierId: z.int().nullable(),
  cargoTypeId: z.int().nullable(),
  originWarehouseId: z.int().nullable(),
  currentWarehouseId: z.int().nullable(),
  deliveryWarehouseId: z.int().nullable(),
  receiptCityId: z.int().nullable(),
  deliveryCityId: z.int().nullable(),
  paymentOrderId: z.int().nullable(),
  currentStatusId: z.int().nullable(),
  createdAt: isoTime(),
  updatedAt: isoTime(),
  currentStatus: ShipmentStatus.extend({
    originCity: PlatformCity.nullable(),
    destinationCity: PlatformCity.nullable(),
    originWarehouse: Warehouse.nullable(),
    destinationWarehouse: Warehouse.nullable(),
  }).nullable(),
  statuses: z.array(ShipmentStatus),
  client: ClientColumns.nullable(),
  order: PaymentOrder.nullable().meta({ description: 'the payment order, with its currency' }),
  type: CargoType.nullable(),
  slot: z.null(),
  currentWarehouse: Warehouse.nullable(),
  currentWarehouseCompany: CompanyColumns.nullable(),
  logisticCompany: CompanyColumns.nullable(),
  expenses: z.array(z.unknown()),
  receiptCity: PlatformCity.nullable(),
  deliveryCity: PlatformCity.nullable(),
  originWarehouse: Warehouse.nullable(),
  deliveryWarehouse: Warehouse.nullable(),
};

export const ParcelItem = z
  .object({
    id: id(),
    trackCode: z.string(),
    description: z.string().nullable(),
    weight: z.number(),
    price: money(),
    currency: z.string(),
    status: z.enum(PARCEL_STATUSES),
    deliveryMethod: z.enum(DELIVERY_METHODS).nullable(),
    postomatId: z.string().nullable(),
    postomatOrderId: z.string().nullable(),
    partnerCompanyId: z.int().nullable(),
    ...shipmentShared,
  })
  .meta({ id: 'ParcelItem' });
export const CargoItem = z
  .object({
    id: id(),
    trackCode: z.string().nullable(),
    description: z.string().nullable(),
    tractorNumber: z.string().nullable(),
    weight: z.number(),
    price: money(),
    currency: z.string(),
    status: z.enum(CARGO_STATUSES),
    ...shipmentShared,
  })
  .meta({ id: 'CargoItem' });
export const ParcelPage = z.object({ total: z.int(), data: z.array(ParcelItem) });
export const CargoPage = z.object({ total: z.int(), data: z.array(CargoItem) });

export const CountryWithCities = PlatformCountry.extend({ cities: z.array(PlatformCity) });

/** Marketplace. */
export const PickupPoint = z
  .object({
    id: id(),
    title: z.string(),
    titleCN: z.string().nullable(),
    titleEN: z.string().nullable(),
    titleKY: z.string().nullable(),
    address: z.string().nullable(),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    schedule: z.string().nullable(),
    schedules: z.unknown(),
    cityId: z.int().nullable(),
    countryId: z.int().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
    city: PlatformCity.nullable().optional().meta({ description: 'with `withCity=true`' }),
    country: PlatformCountry.nullable().optional().meta({ description: 'with `withCountry=true`' }),
    distance: z.number().optional().meta({ description: 'kilometres, with `latitude` and `longitude`' }),
  })
  .meta({ id: 'PickupPoint' });
export const PickupPointPage = z.object({ total: z.int(), data: z.array(PickupPoint) });
export const MarketCity = PlatformCity.extend({
  country: PlatformCountry.nullable().optional().meta({ description: 'with `withCountry=true`' }),
});
export const MarketCityPage = z.object({ total: z.int(), data: z.array(MarketCity) });

export const Parcel = z
  .object({
    id: id(),
    trackCode: z.string(),
    description: z.string().nullable(),
    weight: z.number(),
    price: money(),
    currency: z.string(),
    status: z.enum(PARCEL_STATUSES),
    deliveryMethod: z.enum(DELIVERY_METHODS).nullable(),
    postomatId: z.string().nullable(),
    postomatOrderId: z.string().nullable(),
    deliveryWarehouseId: z.int().nullable(),
    companyId: id(),
    partnerCompanyId: z.int().nullable(),
    clientId: z.int().nullable(),
    supplierId: z.int().nullable(),
    receiptCityId: z.int().nullable(),
    deliveryCityId: z.int().nullable(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'Parcel' });

export const ParcelWithLockerOrder = z
  .object({
    parcel: Parcel,
    postomatOrder: Order,
    downCode: OrderCode.nullable().meta({ description: 'may be null when not yet available' }),
  })
  .meta({ id: 'ParcelWithLockerOrder' });

/** Creation and the track-code read: the parcel alone, or with its locker order when one was created. */
export const ParcelView = z.union([Parcel, ParcelWithLockerOrder]).meta({ id: 'ParcelView' });
export const MarketParcelStatus = z.object({ trackCode: z.string(), status: z.enum(MARKET_STATUSES) });
export const RedirectAnswer = z.object({ message: z.literal('parcel redirected'), parcel: Parcel });

export type ParcelOut = z.output<typeof Parcel>;
export type ParcelViewOut = z.output<typeof ParcelView>;
