/** @parcel-locker/client: see client/README.md. */
export {
  LockerClient,
  type LockerClientOptions,
  type CreateOrderBody,
  type CreatedOrder,
  type Order,
  type OrderPage,
  type SandboxOutcome,
  type CodeType,
} from './locker-client.ts';
export {
  MarketClient,
  type PlatformClientOptions,
  type ParcelCreateBody,
  type CreatedParcel,
} from './platform-client.ts';
export { ApiError, NetworkError, isUncertain } from './errors.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './transport.ts';
export type { Operations, Schemas, OperationId } from './api-types.ts';
