/**
 * Time travel for one order, so an integrator can see expiry without waiting days: a DELIVERED
 * order's storage period is moved so that it ended a minute ago (it counts in `expiredAggregate`
 * at once, its length unchanged); a CREATED order is archived as an order never placed would be
 * (services/order-expiry.ts), its codes withdrawn from the locker at the next sync; a sized one's
 * reservation lapses (EXPIRED, `order.expired`). The clock of
 * the cloud does not move: nothing else expires.
 */
import { DomainError } from '../../domain/errors.ts';
import { expireOrder, lapseReservation } from '../order-expiry.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { findOrder } from '../../storage/order-queries.ts';
import { shiftStoragePeriod } from '../../storage/order-writes.ts';
import { SandboxRefusal } from './flows.ts';
import type { ExpiredOrder } from './outcomes.ts';

/** How long ago an expired storage period ended. */
const ENDED_AGO_MS = 60_000;

export async function expireNow(uow: UnitOfWork, companyId: string, orderId: string, now: Date): Promise<ExpiredOrder> {
  await uow.run(async (tx) => {
    const order = await findOrder(tx.db, companyId, orderId);
    if (!order) throw new DomainError('ORDER_NOT_FOUND');
    if (order.status === 'CREATED') {
      // A sized order (issue 22): its reservation lapses now, as at its reserveUntil (EXPIRED).
      const done = order.reserveUntil
        ? await lapseReservation(tx, order.id, now)
        : await expireOrder(tx, order.id, now);
      if (!done) throw new SandboxRefusal('ORDER_STATE', `order ${orderId} was already archived`);
      return;
    }
    if (order.status !== 'DELIVERED' || !order.endDateTime || !order.startDateTime) {
      throw new SandboxRefusal(
        'ORDER_STATE',
        `order ${orderId} is ${order.status}: only a CREATED or DELIVERED order can expire`,
      );
    }
    const end = new Date(now.getTime() - ENDED_AGO_MS);
    const shift = Date.parse(order.endDateTime) - end.getTime();
    if (shift <= 0) return; // already past its end
    await shiftStoragePeriod(tx.db, order.id, {
      startDateTime: new Date(Date.parse(order.startDateTime) - shift).toISOString(),
      endDateTime: end.toISOString(),
      updatedAt: now.toISOString(),
    });
  });
  const after = await findOrder(uow.db, companyId, orderId);
  if (!after) throw new DomainError('ORDER_NOT_FOUND');
  return {
    orderId,
    status: after.status,
    isActive: after.isActive === 1,
    startDateTime: after.startDateTime,
    endDateTime: after.endDateTime,
    expiredAt: after.expiredAt ?? null,
  };
}
