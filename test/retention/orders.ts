/**
 * Order changes the retention tests make through the real services, in one place: each runs
 * in its own unit of work, as the API or an agent event would run it.
 */
import type { Clock } from '../../shared/clock.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { moveOrderToPostomat, withdrawOrder } from '../../cloud/services/order-moves.ts';
import { markPaid, transitionOrder } from '../../cloud/services/order-transitions.ts';
import type { Storage } from '../../cloud/storage/database.ts';
import { testUow } from '../helpers/locker-world.ts';

export function orderOps(storage: Pick<Storage, 'db' | 'changes'>, clock: Clock) {
  const uow = testUow(storage);
  return {
    async create(companyId: string, postomatId: string, pay = true): Promise<string> {
      return (
        await createOrder(
          { uow, clock },
          { companyId, postomatId, toUserPhone: '+996555000333', sendMessage: false, pay },
        )
      ).id;
    },
    step: (orderId: string, to: 'DELIVERED' | 'COMPLETED' | 'SUBTRACTED', cellId?: string) =>
      uow.run((tx) => transitionOrder(tx, { orderId, to, at: clock.now(), cellId })),
    withdraw: (orderId: string) => uow.run((tx) => withdrawOrder(tx, orderId, clock.now())),
    move: (orderId: string, postomatId: string) =>
      uow.run((tx) => moveOrderToPostomat(tx, orderId, postomatId, clock.now())),
    pay: (orderId: string) => uow.run((tx) => markPaid(tx, orderId, clock.now())),
  };
}
