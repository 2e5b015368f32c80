/**
 * Order changes the retention tests make through the real services, in one place: each runs
 * in its own transaction, as the API or an agent event would run it.
 */
import type { Clock } from '../../cloud/clock.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { moveOrderToPostomat, withdrawOrder } from '../../cloud/services/order-moves.ts';
import { markPaid, transitionOrder } from '../../cloud/services/order-transitions.ts';
import type { Storage } from '../../cloud/storage/database.ts';

export function orderOps(storage: Pick<Storage, 'db'>, clock: Clock) {
  const { db } = storage;
  return {
    async create(companyId: string, postomatId: string, pay = true): Promise<string> {
      return (await createOrder({ db, clock }, { companyId, postomatId, toUserPhone: '+996555000333', sendMessage: false, pay })).id;
    },
    step: (orderId: string, to: 'DELIVERED' | 'COMPLETED' | 'SUBTRACTED', cellId?: string) =>
      db.transaction().execute((trx) => transitionOrder(trx, { orderId, to, at: clock.now(), cellId })),
    withdraw: (orderId: string) => db.transaction().execute((trx) => withdrawOrder(trx, orderId, clock.now())),
    move: (orderId: string, postomatId: string) => db.transaction().execute((trx) => moveOrderToPostomat(trx, orderId, postomatId, clock.now())),
    pay: (orderId: string) => db.transaction().execute((trx) => markPaid(trx, orderId, clock.now())),
  };
}
