/**
 * What service staff do to one locker order: read it (never its codes), settle its unpaid
 * remainder, take the parcel out of the cell.
 */
import type { Db } from '../../storage/database.ts';
import { orderById, statusHistoryOf } from '../../storage/order-lookups.ts';
import { cellWithBoardAddress } from '../../storage/cell-queries.ts';
import { lockerCompanySummary } from '../../storage/locker-company-queries.ts';
import { postomatSummary } from '../../storage/postomat-queries.ts';
import { recipientPhone } from '../../storage/recipient-queries.ts';
import { ordersForStaff, type StaffOrderFilter } from '../../storage/staff-order-list.ts';
import { DomainError } from '../../domain/errors.ts';
import { isFinal, type OrderStatus } from '../../domain/order-states.ts';
import { markPaid, transitionOrder } from '../order-transitions.ts';
import { queueOpenCell } from '../staff-commands.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { getLockerCompany } from './companies.ts';
import { getPostomat } from './postomats.ts';

async function getOrder(db: Db, id: string) {
  const order = await orderById(db, id);
  if (!order) throw new DomainError('ORDER_NOT_FOUND', `no order ${id}`);
  return order;
}

/** An order with its locker, cell, company and status history; codes are deliberately left out. */
export async function orderDetails(db: Db, id: string) {
  const order = await getOrder(db, id);
  const [postomat, cell, company, statuses, recipient] = await Promise.all([
    postomatSummary(db, order.postomatId),
    order.cellId ? cellWithBoardAddress(db, order.cellId) : Promise.resolve(undefined),
    lockerCompanySummary(db, order.companyId),
    statusHistoryOf(db, id),
    recipientPhone(db, order.toUserId),
  ]);
  return {
    ...order,
    postomat: postomat ?? null,
    cell: cell ?? null,
    company: company ?? null,
    phone: recipient?.phone ?? null,
    statuses,
  };
}

/** Staff settle the unpaid remainder (paid at the counter, or waived). */
export async function payOrder(uow: UnitOfWork, id: string, at: Date) {
  return uow.run(async (tx) => {
    const order = await getOrder(tx.db, id);
    if (isFinal(order.status as OrderStatus))
      throw new DomainError('ORDER_COMPLETED', `order ${id} is ${order.status}: nothing left to pay`);
    const settled = order.notPaidAmount;
    const updated = await markPaid(tx, id, at);
    return { order: updated, settled };
  });
}

/**
 * Staff take a DELIVERED parcel out of its cell. The locker does it: a durable OPEN_CELL
 * command for its agent (sent by a running cloud, answered by the agent), and the order
 * becomes SUBTRACTED when the agent reports the parcel gone. Asking again while a command is
 * still open reuses it. `manual`: the parcel is already out (a locker that cannot be reached,
 * opened with a key): the order becomes SUBTRACTED at once, and the locker forgets it on sync.
 */
export async function subtractOrderByStaff(uow: UnitOfWork, id: string, at: Date, options: { manual?: boolean } = {}) {
  return uow.run(async (tx) => {
    const order = await getOrder(tx.db, id);
    if (options.manual)
      return {
        order: await transitionOrder(tx, { orderId: id, to: 'SUBTRACTED', at }),
        command: undefined,
        created: false,
      };
    if (order.status !== 'DELIVERED') {
      const why = order.status === 'CREATED' ? 'its parcel is not in a cell yet' : 'it is finished';
      throw new DomainError('INVALID_TRANSITION', `order ${id} is ${order.status}, cannot become SUBTRACTED: ${why}`);
    }
    const { command, created } = await queueOpenCell(tx, order, at);
    return { order, command, created };
  });
}

/** Newest orders first, of any company unless one is named; no codes. */
export async function listOrdersForStaff(db: Db, f: StaffOrderFilter) {
  if (f.companyId) await getLockerCompany(db, f.companyId);
  if (f.postomatId) await getPostomat(db, f.postomatId);
  return ordersForStaff(db, f);
}
