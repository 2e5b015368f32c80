/**
 * Orders never placed do not hold a locker's codes for ever: one still waiting for its parcel
 * UNPLACED_ORDER_DAYS after its creation is archived like a withdrawn order (isActive 0, out of
 * the lists and counters, its codes free again, dropped by its locker at the next sync), with
 * `expiredAt` saying why. A parcel placed after all revives it (order-transitions.ts).
 */
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../storage/ids.ts';
import { unplacedCutoff } from '../domain/order-limits.ts';
import type { Logger } from '../logger.ts';
import { addToStats, amountsOf, negate } from '../storage/order-stats.ts';
import { orderById } from '../storage/order-lookups.ts';
import { closeUnplacedOrder, freeOrderCodes, recordOrderStatus } from '../storage/order-writes.ts';
import { ordersDueToLapse, unplacedOrdersDue } from '../storage/orders-due.ts';
import { lockerCompanyIds } from '../storage/locker-company-queries.ts';
import type { Tx, UnitOfWork } from './unit-of-work.ts';

export interface ExpiryDeps {
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
}

export interface ExpiryOptions {
  days: number;
  /** orders per transaction */
  batch: number;
}

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads the rows due (`next`, at most `batch`), applies `apply` to each in one transaction per
 * batch, reports each applied row, and serves the event loop between batches; until a batch
 * comes back short. Returns how many were applied.
 */
async function inBatches<R>(
  uow: UnitOfWork,
  batch: number,
  next: () => Promise<R[]>,
  apply: (tx: Tx, row: R) => Promise<boolean>,
  applied: (row: R) => void,
): Promise<number> {
  let total = 0;
  for (;;) {
    const due = await next();
    if (!due.length) break;
    const done = await uow.run(async (tx) => {
      const out: R[] = [];
      for (const row of due) if (await apply(tx, row)) out.push(row);
      return out;
    });
    done.forEach(applied);
    total += done.length;
    if (due.length < batch) break;
    await yieldTurn();
  }
  return total;
}

/** Archives every order due; returns how many. A batch per transaction, the event loop served between batches. */
export async function expireUnplacedOrders(deps: ExpiryDeps, options: ExpiryOptions): Promise<number> {
  const db = deps.uow.db;
  const now = deps.clock.now();
  const cutoff = unplacedCutoff(now, options.days).toISOString();
  let total = 0;
  // Company by company: each one's CREATED orders by age are a range of its list index.
  for (const { id: companyId } of await lockerCompanyIds(db)) {
    total += await inBatches(
      deps.uow,
      options.batch,
      () => unplacedOrdersDue(db, companyId, cutoff, options.batch),
      (tx, o) => expireOrder(tx, o.id, now),
      (o) =>
        deps.logger.info('unplaced order expired', {
          orderId: o.id,
          lockerId: o.postomatId,
          companyId,
          days: options.days,
        }),
    );
  }
  return total;
}

/** Archives one order if it is still an active CREATED one (a placement racing with it wins). */
export async function expireOrder(tx: Tx, orderId: string, at: Date): Promise<boolean> {
  const trx = tx.db;
  const order = await orderById(trx, orderId);
  if (order?.isActive !== 1 || order.status !== 'CREATED') return false;
  const now = at.toISOString();
  if (!(await closeUnplacedOrder(trx, orderId, { isActive: 0, expiredAt: now, updatedAt: now }))) return false;
  await freeOrderCodes(trx, orderId, now);
  await addToStats(trx, order.companyId, 'CREATED', -1, negate(amountsOf(order)));
  // Its locker drops it, and its codes stop working there.
  await tx.after.lockerChanged(order.postomatId, orderId);
  return true;
}

/**
 * Sized orders whose reservation lapsed unplaced (issue 22): each becomes EXPIRED (its status
 * record written, shown by GET /order/{id}), leaves the lists and counters, frees its codes and
 * its cell's capacity, and its locker drops it at the next sync; subscriptions get
 * `order.expired`. The spec's company notification is not sent (its shapes know no EXPIRED).
 * A batch per transaction, oldest deadline first; returns how many lapsed.
 */
export async function lapseReservations(deps: ExpiryDeps, options: { batch: number }): Promise<number> {
  const now = deps.clock.now();
  return inBatches(
    deps.uow,
    options.batch,
    () => ordersDueToLapse(deps.uow.db, now.toISOString(), options.batch),
    (tx, o) => lapseReservation(tx, o.id, now),
    (o) => deps.logger.info('reservation lapsed', { orderId: o.id, lockerId: o.postomatId, companyId: o.companyId }),
  );
}

/** One reservation lapses if its order is still an active, unplaced one (a placement racing with it wins). */
export async function lapseReservation(tx: Tx, orderId: string, at: Date): Promise<boolean> {
  const trx = tx.db;
  const order = await orderById(trx, orderId);
  if (order?.isActive !== 1 || order.status !== 'CREATED' || !order.reserveUntil) return false;
  const now = at.toISOString();
  const statusId = newId();
  const changes = {
    status: 'EXPIRED' as const,
    currentStatusId: statusId,
    isActive: 0,
    expiredAt: now,
    updatedAt: now,
  };
  if (!(await closeUnplacedOrder(trx, orderId, changes))) return false;
  await recordOrderStatus(trx, { id: statusId, orderId, type: 'EXPIRED', createdAt: now, updatedAt: now });
  await freeOrderCodes(trx, orderId, now);
  await addToStats(trx, order.companyId, 'CREATED', -1, negate(amountsOf(order)));
  await tx.after.orderEvent({ ...order, ...changes }, 'order.expired', at);
  // Last: its locker drops it (the DOWN code then says "Wrong code"); on PostgreSQL it holds the sync row until commit.
  await tx.after.lockerChanged(order.postomatId, orderId);
  return true;
}
