/**
 * Business errors carry a code from a closed set; the HTTP layer alone decides the status
 * (http/error-map.ts), because the spec gives one code different statuses per endpoint.
 */
export const ERROR_CODES = [
  'ORDER_NOT_FOUND',
  'POSTOMAT_NOT_FOUND',
  'INSUFFICIENT_FUNDS',
  'CODES_EXHAUSTED',
  'COMPANY_NOT_FOUND',
  'PARCEL_NOT_FOUND',
  'WAREHOUSE_NOT_FOUND',
  'CODE_NOT_FOUND',
  'NOT_FOUND',
  'USER_NOT_FOUND',
  'PASSWORD_NOT_CORRECT',
  'NOT_ACCEPTABLE',
  'WEBHOOK_TYPE_EXIST',
  'WEBHOOK_PAYLOAD_INVALID',
  'TRACK_CODE_ALREADY_EXISTS',
  'ORDER_COMPLETED',
  'ORDER_NOT_PAID',
  'CELL_NOT_FOUND',
  'INVALID_TRANSITION',
  'CLIENT_NOT_FOUND',
  'SUPPLIER_NOT_FOUND',
  'CARGO_NOT_FOUND',
  'UNAUTHORIZED',
  'IDEMPOTENCY_KEY_REQUIRED',
  'IDEMPOTENCY_KEY_REUSED',
  'POSTOMAT_PROVIDER_ERROR',
  'TOO_MANY_PENDING_ORDERS',
  'ORDER_ALREADY_PLACED',
  'ORDER_NOT_DELIVERED',
  'STORAGE_PERIOD_TOO_LONG',
  'TOO_MANY_SUBSCRIPTIONS',
  'SUBSCRIPTION_NOT_FOUND',
  'EVENT_NOT_FOUND',
  'PARCEL_TOO_BIG',
  'NO_FITTING_CELL',
  'ORDER_NOT_A_RETURN',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class DomainError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, detail?: string) {
    super(detail ?? code);
    this.name = 'DomainError';
    this.code = code;
  }
}
