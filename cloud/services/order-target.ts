/**
 * The checks a locker must pass before it takes one more of a company's orders (a creation or a
 * redirect there): active, and within the company's pending orders at it. One read answers
 * both and brings the company's row, which a creation prices the order from, and which of the
 * creation's first drawn codes are live at the locker (storage/order-queries.ts orderTargetAt).
 */
import { DomainError } from '../domain/errors.ts';
import { DEFAULT_PENDING_ORDERS_PER_LOCKER } from '../domain/order-limits.ts';
import type { Db } from '../storage/database.ts';
import { orderTargetAt } from '../storage/order-queries.ts';

export interface OrderTargetConfig {
  /** DEFAULT_PENDING_ORDERS_PER_LOCKER when absent */
  pendingOrdersPerLocker?: number;
}

/**
 * One company's unplaced orders may not take a shared locker's codes from the others. Checked
 * before anything is written; concurrent creations on PostgreSQL may pass it together, so the
 * bound can be exceeded by at most the requests in flight.
 */
export async function admitOrderAt(
  db: Db,
  postomatId: string,
  companyId: string,
  config: OrderTargetConfig | undefined,
  options: { notFoundDetail?: string; drawnCodes?: readonly string[] } = {},
) {
  const target = await orderTargetAt(db, postomatId, companyId, options.drawnCodes);
  if (!target.postomatActive) throw new DomainError('POSTOMAT_NOT_FOUND', options.notFoundDetail);
  const limit = config?.pendingOrdersPerLocker ?? DEFAULT_PENDING_ORDERS_PER_LOCKER;
  if (target.pendingOrders >= limit) {
    throw new DomainError(
      'TOO_MANY_PENDING_ORDERS',
      `company ${companyId} has ${limit} orders waiting for placement at locker ${postomatId}`,
    );
  }
  return target;
}
