/**
 * Tables of the Platform API (migration 006_platform). Same conventions as schema.ts: flags
 * 0/1, ISO text timestamps, money in integer minor units. Platform records have integer ids
 * (the spec shows them as integers), unlike the Locker API's cuid2 ids.
 *
 * Parcels and cargo carry a few denormalised columns (current status, client code and
 * company, paid state, whether they sit at a pickup point or at their final point, a search
 * text) so that every list filter of the spec is an index range. The services in
 * cloud/services/platform/ are the only writers and keep them in step.
 */
import type { Generated } from 'kysely';
import type { Flag, Iso, Minor } from './column-types.ts';
import type {
  CargoKind,
  CargoStatus,
  CompanyType,
  DeliveryMethod,
  ParcelStatus,
  UserRole,
  WebhookSubtype,
  WebhookType,
} from '../domain/platform/enums.ts';

type Id = Generated<number>;

/** Translated titles beside `title`. */
interface TitleColumns {
  titleRU: string | null;
  titleCN: string | null;
  titleEN: string | null;
  titleKY: string | null;
}

export interface PlatformCountryTable extends TitleColumns {
  id: Id;
  title: string;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface PlatformCityTable extends TitleColumns {
  id: Id;
  countryId: number;
  title: string;
  lat: number | null;
  lng: number | null;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface PlatformCompanyTable {
  id: Id;
  title: string;
  type: CompanyType;
  isActive: Flag;
  isIntercity: Flag;
  isInternational: Flag;
  isCleaning: Flag;
  phone: string | null;
  email: string | null;
  address: string | null;
  countryId: number | null;
  cityId: number | null;
  /**
   * The Locker API company whose orders this company creates through
   * /api/v1/integrations/postomat/* and the marketplace: they are ordinary locker orders of it.
   */
  lockerCompanyId: string | null;
  /** the operator's switch for locker access through the platform */
  lockerAccess: Flag;
  /** the last client code handed out: codes are drawn by bumping it (client-codes.ts) */
  lastClientCode: number;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface DeliveryTypeTable {
  id: Id;
  title: string;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface CargoTypeTable extends TitleColumns {
  id: Id;
  title: string;
  type: CargoKind;
  isParent: Flag;
  /** a child type names its parent type (isParent = 1) */
  parentId: number | null;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface CargoTypeDeliveryTypeTable {
  cargoTypeId: number;
  deliveryTypeId: number;
}

/** A company's code name (the `ABC` of `ABC-123`); each belongs to one cargo type. */
export interface CompanyCodeTable {
  id: Id;
  companyId: number;
  /** upper-case Latin letters, unique across companies so a code name names one company */
  title: string;
  cargoTypeId: number;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface CompanyCargoTypeTable {
  companyId: number;
  cargoTypeId: number;
}

export interface CompanyDeliveryTypeTable {
  companyId: number;
  deliveryTypeId: number;
}

/**
 * Who works with whom: a warehouse company with the logistics companies it serves, a
 * marketplace with its partner (logistics) companies. `companyId` is the warehouse or
 * marketplace, `partnerId` the logistics company.
 */
export interface CompanyPartnershipTable {
  companyId: number;
  partnerId: number;
  createdAt: Iso;
}

export interface PlatformUserTable {
  id: Id;
  email: string;
  name: string | null;
  /** scrypt$N$r$p$salt$hash (domain/secrets.ts) */
  passwordHash: string;
  role: UserRole;
  companyId: number;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

/** One row per issued refresh token (its `jti`); using it stamps `usedAt`, once. */
export interface RefreshTokenTable {
  id: string;
  userId: number;
  expiresAt: Iso;
  usedAt: Iso | null;
  createdAt: Iso;
}

export interface PlatformApiKeyTable {
  id: Id;
  companyId: number;
  title: string;
  /** kept readable: the spec's key list shows the `key` values */
  key: string;
  /** sha256 of the key, the indexed lookup of every authenticated request */
  keyHash: string;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface PlatformWebhookTable {
  id: Id;
  companyId: number;
  type: WebhookType;
  /** stored only for PARCEL, CARGO and NOTIFICATION; null otherwise */
  subtype: WebhookSubtype | null;
  url: string;
  payloadTemplate: string | null;
  /** sent as x-api-key with each delivery; never logged */
  apiKey: string | null;
  method: 'POST';
  createdAt: Iso;
  updatedAt: Iso;
}

/** Warehouses of a company; marketplace pickup points are warehouses with isPickupPoint. */
export interface WarehouseTable extends TitleColumns {
  id: Id;
  companyId: number;
  title: string;
  address: string | null;
  lat: number | null;
  lng: number | null;
  schedule: string | null;
  /** JSON text: an array of `{ day, open, close }`-like entries, shown as given */
  schedules: string | null;
  countryId: number | null;
  cityId: number | null;
  isPickupPoint: Flag;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface PlatformClientTable {
  id: Id;
  companyId: number;
  /** unique within the company; shown to the recipient as `<code name>-<code>` */
  code: number;
  name: string | null;
  phone: string | null;
  /** name and phone, lower-cased, for the list search (domain/platform/search-text.ts; migration 010) */
  searchText: string;
  address: string | null;
  isActive: Flag;
  countryId: number | null;
  cityId: number | null;
  deliveryWarehouseCompanyId: number | null;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface SupplierTable {
  id: Id;
  companyId: number;
  name: string | null;
  phone: string;
  address: string | null;
  isActive: Flag;
  cityId: number | null;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface PaymentOrderTable {
  id: Id;
  /** the company that bills */
  companyId: number;
  clientId: number | null;
  amount: Minor;
  /** ISO 4217 */
  currency: string;
  isPaid: Flag;
  paidAt: Iso | null;
  createdAt: Iso;
  updatedAt: Iso;
}

/** What parcels and cargo share: client, places, payment, and the denormalised filter columns. */
interface ShipmentColumns {
  id: Id;
  description: string | null;
  weight: number;
  price: Minor;
  currency: string;
  /** the owning logistics company */
  companyId: number;
  clientId: number | null;
  /** the client's company and code, copied from the client (neither ever changes) */
  clientCompanyId: number | null;
  clientCode: number | null;
  supplierId: number | null;
  cargoTypeId: number | null;
  originWarehouseId: number | null;
  currentWarehouseId: number | null;
  deliveryWarehouseId: number | null;
  receiptCityId: number | null;
  deliveryCityId: number | null;
  paymentOrderId: number | null;
  /** null without a payment order, else the order's isPaid */
  isPaid: Flag | null;
  currentStatusId: number | null;
  /** 1 while the current warehouse is a pickup point */
  atPickupPoint: Flag;
  /** 1 when the item has reached its final point (domain/platform/final-point.ts) */
  atFinalPoint: Flag;
  /** what the list search matches of the item itself (track code, description, code names, …), maintained by the services */
  searchText: string;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface ParcelTable extends ShipmentColumns {
  trackCode: string;
  deliveryMethod: DeliveryMethod | null;
  /** the locker (Locker API id) and the locker order, for POSTOMAT delivery */
  postomatId: string | null;
  postomatOrderId: string | null;
  /** the marketplace that created the parcel */
  partnerCompanyId: number | null;
  /** set by a redirect, cleared when the parcel arrives at its new point */
  redirectedAt: Iso | null;
  status: ParcelStatus;
}

export interface CargoTable extends ShipmentColumns {
  trackCode: string | null;
  tractorNumber: string | null;
  /** the cargo type's kind, copied for the `cargoTypes` filter */
  cargoKind: CargoKind | null;
  status: CargoStatus;
}

/** A status record; the origin and destination are the item's at the time of the change. */
interface StatusColumns {
  id: Id;
  status: string;
  /** where the change happened */
  warehouseId: number | null;
  originWarehouseId: number | null;
  destinationWarehouseId: number | null;
  originCityId: number | null;
  destinationCityId: number | null;
  /** the platform user who made the change, when a person did */
  userId: number | null;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface ParcelStatusTable extends StatusColumns {
  parcelId: number;
  status: ParcelStatus;
}

export interface CargoStatusTable extends StatusColumns {
  cargoId: number;
  status: CargoStatus;
}

/**
 * Marketplace parcel creation's Idempotency-Key: the first request claims (companyId, key);
 * its response is stored when it finishes, and repeats within the window get it back.
 */
export interface MarketIdempotencyTable {
  companyId: number;
  key: string;
  /** sha256 of the request body, to tell a true repeat from a reused key */
  requestHash: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: Iso;
  completedAt: Iso | null;
}

/** A pending rewrite of many rows, done a batch per transaction (migration 015). */
export interface BulkJobTable {
  id: Generated<number>;
  kind: string;
  targetId: number;
  /** which of the job's tables it is at */
  phase: number;
  /** the last row id rewritten in this phase */
  afterId: number;
  createdAt: Iso;
}

export interface PlatformDatabase {
  platform_country: PlatformCountryTable;
  platform_city: PlatformCityTable;
  platform_company: PlatformCompanyTable;
  delivery_type: DeliveryTypeTable;
  cargo_type: CargoTypeTable;
  cargo_type_delivery_type: CargoTypeDeliveryTypeTable;
  company_code: CompanyCodeTable;
  company_cargo_type: CompanyCargoTypeTable;
  company_delivery_type: CompanyDeliveryTypeTable;
  company_partnership: CompanyPartnershipTable;
  platform_user: PlatformUserTable;
  refresh_token: RefreshTokenTable;
  platform_api_key: PlatformApiKeyTable;
  platform_webhook: PlatformWebhookTable;
  warehouse: WarehouseTable;
  platform_client: PlatformClientTable;
  supplier: SupplierTable;
  payment_order: PaymentOrderTable;
  parcel: ParcelTable;
  parcel_status: ParcelStatusTable;
  cargo: CargoTable;
  cargo_status: CargoStatusTable;
  market_idempotency: MarketIdempotencyTable;
  bulk_job: BulkJobTable;
}
