import { DomainError, type ErrorCode } from '../domain/errors.ts';
import { HttpError } from './http-error.ts';

/** Default HTTP status of each business error; routes override where the spec differs. */
export const DEFAULT_STATUS: Record<ErrorCode, number> = {
  ORDER_NOT_FOUND: 404,
  POSTOMAT_NOT_FOUND: 404,
  INSUFFICIENT_FUNDS: 403,
  CODES_EXHAUSTED: 503,
  COMPANY_NOT_FOUND: 404,
  PARCEL_NOT_FOUND: 404,
  WAREHOUSE_NOT_FOUND: 404,
  CODE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  PASSWORD_NOT_CORRECT: 406,
  NOT_ACCEPTABLE: 406,
  WEBHOOK_TYPE_EXIST: 406,
  WEBHOOK_PAYLOAD_INVALID: 406,
  TRACK_CODE_ALREADY_EXISTS: 409,
  ORDER_COMPLETED: 406,
  ORDER_NOT_PAID: 406,
  CELL_NOT_FOUND: 404,
  INVALID_TRANSITION: 406,
  CLIENT_NOT_FOUND: 404,
  SUPPLIER_NOT_FOUND: 404,
  CARGO_NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  // The IETF Idempotency-Key draft's answer to a key reused with another request.
  IDEMPOTENCY_KEY_REUSED: 422,
  POSTOMAT_PROVIDER_ERROR: 502,
  // Not a rate: it lifts when the company's parcels are placed or its unplaced orders expire.
  TOO_MANY_PENDING_ORDERS: 409,
  // Extensions (issue 22): the state forbids the change.
  ORDER_ALREADY_PLACED: 409,
  ORDER_NOT_DELIVERED: 409,
  // Returns: the drop-off QR code is a return's.
  ORDER_NOT_A_RETURN: 409,
  STORAGE_PERIOD_TOO_LONG: 409,
  TOO_MANY_SUBSCRIPTIONS: 409,
  SUBSCRIPTION_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  // Size-aware booking (issue 22): no cell of the locker fits the parcel / none is left free.
  PARCEL_TOO_BIG: 409,
  NO_FITTING_CELL: 409,
};

/** Codes the spec answers with a text rather than the code itself. */
export const MESSAGE_TEXT: Partial<Record<ErrorCode, string>> = {
  POSTOMAT_PROVIDER_ERROR: 'Postomat provider error',
};

/**
 * The one table of exceptions: where an endpoint (or a family) answers a business error with
 * another status than DEFAULT_STATUS, because the spec (or the extension's design) says so.
 */
export const STATUS_EXCEPTIONS = {
  /** POST /api/v1/auth/refresh: the spec answers both of its errors with 400. */
  platformRefresh: { UNAUTHORIZED: 400, USER_NOT_FOUND: 400 },
  /**
   * The Locker API's Idempotency-Key (order create and its extension POSTs): a key reused with
   * another request is a conflict, 409; the marketplace's own rule stays the IETF draft's 422.
   */
  lockerIdempotency: { IDEMPOTENCY_KEY_REUSED: 409 },
} as const satisfies Record<string, Partial<Record<ErrorCode, number>>>;
export type StatusException = keyof typeof STATUS_EXCEPTIONS;

/** Runs `work`, rethrowing a business error with the status `exception` gives its code. */
export async function withStatuses<T>(exception: StatusException, work: () => Promise<T>): Promise<T> {
  const overrides: Partial<Record<ErrorCode, number>> = STATUS_EXCEPTIONS[exception];
  try {
    return await work();
  } catch (err) {
    const status = err instanceof DomainError ? overrides[err.code] : undefined;
    if (status !== undefined) throw new HttpError(status, (err as DomainError).code);
    throw err;
  }
}
