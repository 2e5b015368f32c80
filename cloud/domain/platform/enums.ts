/**
 * The closed sets of the Platform API, written once: zod request schemas, storage types,
 * the operator CLI and the seed all take their values from here.
 */
export const COMPANY_TYPES = ['LOGIST', 'WAREHOUSE', 'MARKETPLACE', 'COURIER'] as const;
export type CompanyType = (typeof COMPANY_TYPES)[number];

export const USER_ROLES = ['ADMIN', 'USER'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Kinds of cargo type (the spec's `type` of a cargo type, and the `cargoTypes` filters). */
export const CARGO_KINDS = ['CARGO', 'CAR', 'PACKAGE', 'FREIGHT'] as const;
export type CargoKind = (typeof CARGO_KINDS)[number];

/**
 * How a parcel reaches its recipient. POSTOMAT and PICKUP are the marketplace's two methods;
 * COURIER (to the recipient's door) and WAREHOUSE (collected at the logistics company's own
 * delivery warehouse) are the logistics operator's.
 */
export const DELIVERY_METHODS = ['POSTOMAT', 'PICKUP', 'COURIER', 'WAREHOUSE'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

export const PARCEL_STATUSES = [
  'AWAITING',
  'RECEIVED',
  'READYTOSHIP',
  'COURIER_RECEIVED',
  'SENT',
  'REDIRECT_TO_PVZ',
  'RECALL',
  'ARRIVED',
  'TRANSFERRED',
  'COMPLETED',
  'LOST',
] as const;
export type ParcelStatus = (typeof PARCEL_STATUSES)[number];

export const CARGO_STATUSES = ['RECEIVED', 'READYTOSHIP', 'SENT', 'TRANSFERRED', 'LOST'] as const;
export type CargoStatus = (typeof CARGO_STATUSES)[number];

export const MARKET_STATUSES = ['CREATED', 'ARRIVED', 'TRANSFERRED_TO_CLIENT', 'REDIRECTED'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

export const WEBHOOK_TYPES = ['PARCEL', 'CARGO', 'CAR', 'NOTIFICATION', 'ADVERTISEMENT'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

export const WEBHOOK_SUBTYPES = [
  'DELIVERED_TO_POSTOMAT',
  'TRANSFERRED_TO_CLIENT',
  'ITEM_CREATED',
  'ARRIVED_AT_DELIVERY',
] as const;
export type WebhookSubtype = (typeof WEBHOOK_SUBTYPES)[number];
