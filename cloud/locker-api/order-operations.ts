/**
 * The Locker API's order operations, shared by both API families: the Locker API and, for a
 * platform company with locker access, /api/v1/integrations/postomat/* on behalf of its locker
 * company (platform-api/postomat.ts): one implementation, one shape. Routes (orders.ts) validate,
 * call one of these and answer.
 */
import type { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import { ListAnswer } from '../http/stream-json.ts';
import { mapBatches } from '../storage/batches.ts';
import { DomainError } from '../domain/errors.ts';
import type { CodeType } from '../domain/order-states.ts';
import { createOrder, createIn, CREATE_REDRAW_ATTEMPTS, type CreateOrderInput } from '../services/create-order.ts';
import { runIdempotent, type IdempotencyKey } from '../services/idempotency.ts';
import {
  findCode,
  findOrder,
  findOrderWithDownCode,
  listOrders,
  loadOrderExtras,
  type CodeRow,
  type OrderExtrasFlags,
} from '../storage/order-queries.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { OrderListQuery } from './schemas.ts';
import { checkReserveUntil } from './sizing.ts';
import { presentAggregate, presentCell, presentOrder, presentPostomat } from './present.ts';

export const ORDER_CODE_PATHS = [
  ['down-code', 'DOWN'],
  ['up-code', 'UP'],
  ['subtract-code', 'SUBTRACT'],
] as const satisfies ReadonlyArray<readonly [string, CodeType]>;

/** Creates an order; the answer is the order object without nested objects or codes. */
export async function createCompanyOrder(deps: AppDeps, input: CreateOrderInput) {
  checkReserveUntil(input.reserveUntil, deps.clock.now());
  const order = await createOrder(
    { uow: deps.uow, clock: deps.clock, randomInt: deps.randomInt, config: deps.config },
    input,
  );
  return presentOrder(order);
}

export function createOrderOnce(deps: AppDeps, input: CreateOrderInput, key: IdempotencyKey) {
  const createDeps = { clock: deps.clock, randomInt: deps.randomInt, config: deps.config };
  return runIdempotent(
    deps.uow,
    key,
    async (tx) => {
      // Inside: a repeat of a request already answered gets its answer, even once reserveUntil has passed.
      checkReserveUntil(input.reserveUntil, deps.clock.now());
      return presentOrder(await createIn(tx, createDeps, input));
    },
    CREATE_REDRAW_ATTEMPTS,
  );
}

/**
 * A page of the company's orders. The spec sets no maximum pageSize: the orders are read,
 * decorated and written a batch at a time (ListAnswer), the aggregates come from the counters.
 */
export async function orderPage(
  deps: AppDeps,
  companyId: string,
  query: z.output<typeof OrderListQuery>,
): Promise<ListAnswer> {
  const page = await listOrders(deps.db, {
    companyId,
    status: query.status,
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
    now: deps.clock.now(),
  });
  return new ListAnswer(
    { total: page.total },
    mapBatches(page.batches, (orders) => presentOrders(deps, orders, query)),
    {
      aggregate: { _sum: presentAggregate(page.sums) },
      expiredAggregate: { _sum: presentAggregate(page.expired.amounts), _count: page.expired.count },
    },
  );
}

/** One order of the company with the nested objects asked for; ORDER_NOT_FOUND when missing or another company's. */
export async function orderView(deps: AppDeps, companyId: string, id: string, flags: OrderExtrasFlags) {
  const found = await findOrderWithDownCode(deps.db, companyId, id);
  if (!found) throw new DomainError('ORDER_NOT_FOUND');
  // The common read asks for no nested objects: nothing more to load, and the same shape as presentOrders gives.
  if (!hasExtras(flags)) return { ...presentOrder(found.order), passwords: passwordsOf(found.down) };
  const [one] = await presentOrders(
    deps,
    [found.order],
    flags,
    new Map(found.down ? [[found.order.id, found.down]] : []),
  );
  return one;
}

export async function orderCode(deps: AppDeps, companyId: string, id: string, type: CodeType): Promise<CodeRow> {
  const order = await findOrder(deps.db, companyId, id);
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  const code = await findCode(deps.db, order.id, type);
  if (!code) throw new DomainError('ORDER_NOT_FOUND');
  return code;
}

/**
 * Orders with the nested objects the flags ask for. `passwords` is always present and holds
 * only the DOWN code: the spec's `withPasswords` has no effect, and the UP code is a recipient secret.
 */
export async function presentOrders(
  deps: AppDeps,
  orders: LockerOrderTable[],
  flags: OrderExtrasFlags,
  knownDownCodes?: Map<string, CodeRow>,
) {
  const x = await loadOrderExtras(deps.db, orders, flags, knownDownCodes);
  return orders.map((o) => {
    const out: Record<string, unknown> = presentOrder(o);
    if (flags.withToUser) out.toUser = x.users.get(o.toUserId) ?? null;
    if (flags.withCell) {
      const cell = o.cellId ? x.cells.get(o.cellId) : undefined;
      const postomat = cell ? x.postomats.get(cell.postomatId) : undefined;
      out.cell = cell ? { ...presentCell(cell), postomat: postomat ? presentPostomat(postomat) : null } : null;
    }
    if (flags.withPostomat) {
      const p = x.postomats.get(o.postomatId);
      out.postomat = p ? presentPostomat(p) : null;
    }
    const history = x.statuses.get(o.id) ?? [];
    if (flags.withCurrentStatus) out.currentStatus = history.find((s) => s.id === o.currentStatusId) ?? null;
    if (flags.withStatuses) out.statuses = history;
    // Lockers here rent no cells; the field is there, empty, when asked for.
    if (flags.withRent) out.rent = null;
    out.passwords = passwordsOf(x.downCodes.get(o.id));
    return out;
  });
}

/** An order's `passwords`: its DOWN code alone (the UP code is the recipient's secret). */
const passwordsOf = (down: CodeRow | undefined) => (down ? [down] : []);

const hasExtras = (f: OrderExtrasFlags) =>
  !!(f.withToUser || f.withCell || f.withPostomat || f.withCurrentStatus || f.withStatuses || f.withRent);
