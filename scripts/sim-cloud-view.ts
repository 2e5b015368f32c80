/**
 * The simulator page's view of the cloud when both run in one process (`npm start`): the
 * operator's services read a locker and its orders (of every company, never their codes), and
 * a test order is made by the very operations behind the Locker API's POST /order/create and
 * GET /order/{id}/down-code…, for one company (the first demo company in `npm start`).
 */
import type { AppDeps } from '../cloud/deps.ts';
import { DomainError } from '../cloud/domain/errors.ts';
import { createCompanyOrder, orderCode } from '../cloud/locker-api/order-operations.ts';
import { listOrdersForStaff } from '../cloud/services/admin/orders.ts';
import { getPostomat } from '../cloud/services/admin/postomats.ts';
import { OrderStatus } from '../shared/mqtt/index.ts';
import type { CloudView } from '../hardware-sim/cloud-view.ts';
import { SimError } from '../hardware-sim/locker.ts';

/** Test orders go to a recipient nobody is: sendMessage is off, so no SMS is sent either. */
const TEST_RECIPIENT = '+996555000000';

export function localCloudView(deps: AppDeps, testOrders: { companyId: string }): CloudView {
  return {
    async locker(lockerId) {
      try {
        return { online: (await getPostomat(deps.db, lockerId)).isConnected === 1 };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'POSTOMAT_NOT_FOUND') return undefined;
        throw err;
      }
    },
    async orders(lockerId, limit) {
      const rows = await listOrdersForStaff(deps.db, { postomatId: lockerId, limit });
      return rows.map((o) => ({
        orderId: o.id,
        status: OrderStatus.parse(o.status),
        cell: o.cellNumber === null ? null : String(o.cellNumber),
        endDateTime: o.endDateTime,
        notPaidAmount: o.notPaidAmount,
        createdAt: o.createdAt,
        ...(o.kind === 'RETURN' && { kind: 'RETURN' as const }),
      }));
    },
    async createTestOrder(lockerId, { pay }) {
      const { companyId } = testOrders;
      const order = await createCompanyOrder(deps, {
        companyId,
        postomatId: lockerId,
        toUserPhone: TEST_RECIPIENT,
        sendMessage: false,
        pay,
      }).catch((err) => {
        // An inactive locker, a balance too low to pay: the tester's answer, not a crash.
        if (err instanceof DomainError) throw new SimError(409, `the cloud refused the test order: ${err.code}`);
        throw err;
      });
      const code = async (type: 'DOWN' | 'UP' | 'SUBTRACT') =>
        (await orderCode(deps, companyId, order.id, type)).password;
      return {
        orderId: order.id,
        codes: { DOWN: await code('DOWN'), UP: await code('UP'), SUBTRACT: await code('SUBTRACT') },
      };
    },
  };
}
