/** The locker order's state machine, as the spec's "States and transitions" table gives it. */
import { z } from 'zod';
import { CodeKind, OrderStatus as OrderStatusSchema } from '../../shared/mqtt/schemas.ts';

// The enums are owned once, as zod, by the contract the cloud shares with the lockers.
export const ORDER_STATUSES = OrderStatusSchema.options;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * The cloud's statuses: the spec's (and the lockers') and EXPIRED, a sized order whose
 * reservation lapsed unplaced (issue 22). An EXPIRED order is never held by a locker, so the
 * MQTT contract and the spec's list filters keep the shared enum; order reads show this one.
 */
export const CloudOrderStatusSchema = z.enum([...ORDER_STATUSES, 'EXPIRED']);
export const CLOUD_ORDER_STATUSES = CloudOrderStatusSchema.options;
export type CloudOrderStatus = z.infer<typeof CloudOrderStatusSchema>;

export const CODE_TYPES = CodeKind.options;
export type CodeType = (typeof CODE_TYPES)[number];

export const FINAL_STATUSES: readonly OrderStatus[] = ['COMPLETED', 'SUBTRACTED'];
/** Orders whose codes are live at the locker, and whose codes must not repeat. */
export const OPEN_STATUSES: readonly OrderStatus[] = ['CREATED', 'DELIVERED'];

const TRANSITIONS: Record<CloudOrderStatus, readonly CloudOrderStatus[]> = {
  CREATED: ['DELIVERED', 'EXPIRED'],
  DELIVERED: ['COMPLETED', 'SUBTRACTED'],
  COMPLETED: [],
  SUBTRACTED: [],
  // A parcel placed after the reservation lapsed (the locker had not heard): it is in the cell.
  EXPIRED: ['DELIVERED'],
};

export function canTransition(from: CloudOrderStatus, to: CloudOrderStatus): boolean {
  return TRANSITIONS[from]?.includes(to) ?? false;
}

export const isFinal = (s: OrderStatus) => FINAL_STATUSES.includes(s);

/**
 * The longest storage period an order may ask for (the spec sets only `days >= 1`). A year
 * keeps every end date a plain four-digit-year ISO time, which sorts and compares as text on
 * both databases, and `days` far inside the integer column; the operator's company default
 * has the same bound.
 */
export const MAX_STORAGE_DAYS = 365;

/**
 * The storage period runs `days` whole days from placement. Orders written before the bound
 * existed may ask for more: they get the longest period rather than an end date that is no
 * date at all (which made their placement fail for ever).
 */
export function storagePeriod(placedAt: Date, days: number): { startDateTime: string; endDateTime: string } {
  const counted = Math.min(Math.max(days, 1), MAX_STORAGE_DAYS);
  return {
    startDateTime: placedAt.toISOString(),
    endDateTime: new Date(placedAt.getTime() + counted * 86_400_000).toISOString(),
  };
}
