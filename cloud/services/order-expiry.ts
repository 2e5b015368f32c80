/**
 * Orders never placed do not hold a locker's codes for ever: one still waiting for its parcel
 * UNPLACED_ORDER_DAYS after its creation is archived like a withdrawn order (isActive 0, out of
 * the lists and counters, its codes free again, dropped by its locker at the next sync), with
 * `expiredAt` saying why. A parcel placed after all revives it (order-transitions.ts).
 */
import type { Clock } from '../../shared/clock.ts';
import { unplacedCutoff } from '../domain/order-limits.ts';
import type { Logger } from '../logger.ts';
import { addToStats, amountsOf, negate } from '../storage/order-stats.ts';
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

/** Archives every order due; returns how many. A batch per transaction, the event loop served between batches. */
export async function expireUnplacedOrders(deps: ExpiryDeps, options: ExpiryOptions): Promise<number> {
  const db = deps.uow.db;
  const now = deps.clock.now();
  const cutoff = unplacedCutoff(now, options.days).toISOString();
  let total = 0;
  // Company by company: each one's CREATED orders by age are a range of its list index.
  for (const { id: companyId } of await db.selectFrom('locker_company').select('id').execute()) {
    for (;;) {
      const due = await db
        .selectFrom('locker_order')
        .select(['id', 'postomatId'])
        .where('companyId', '=', companyId)
        .where('isActive', '=', 1)
        .where('status', '=', 'CREATED')
        .where('createdAt', '<', cutoff)
        .orderBy('createdAt')
        .limit(options.batch)
        .execute();
      if (!due.length) break;
      const expired = await deps.uow.run(async (tx) => {
        const done = [];
        for (const o of due) if (await expireOrder(tx, o.id, now)) done.push(o);
        return done;
      });
      for (const o of expired) deps.logger.info('unplaced order expired', { orderId: o.id, lockerId: o.postomatId, companyId, days: options.days });
      total += expired.length;
      if (due.length < options.batch) break;
      await yieldTurn();
    }
  }
  return total;
}

/** Archives one order if it is still an active CREATED one (a placement racing with it wins). */
export async function expireOrder(tx: Tx, orderId: string, at: Date): Promise<boolean> {
  const trx = tx.db;
  const order = await trx.selectFrom('locker_order').selectAll().where('id', '=', orderId).executeTakeFirst();
  if (!order || order.isActive !== 1 || order.status !== 'CREATED') return false;
  const now = at.toISOString();
  const res = await trx
    .updateTable('locker_order')
    .set({ isActive: 0, expiredAt: now, updatedAt: now })
    .where('id', '=', orderId)
    .where('status', '=', 'CREATED')
    .where('isActive', '=', 1)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  await trx.updateTable('order_code').set({ active: 0, updatedAt: now }).where('orderId', '=', orderId).execute();
  await addToStats(trx, order.companyId, 'CREATED', -1, negate(amountsOf(order)));
  // Its locker drops it, and its codes stop working there.
  await tx.after.lockerChanged(order.postomatId, orderId);
  return true;
}
