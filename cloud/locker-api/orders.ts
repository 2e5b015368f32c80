/** Locker API: orders and their codes. */
import type { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { route } from '../http/route.ts';
import { HttpError } from '../http/http-error.ts';
import { lockerCaller } from '../http/locker-auth.ts';
import { DomainError } from '../domain/errors.ts';
import { createOrder } from '../services/create-order.ts';
import { findCode, findOrder, findOrderWithDownCode, listOrders, loadOrderExtras, type CodeRow, type OrderExtrasFlags } from '../storage/order-queries.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import { CreateOrderBody, IdParams, OrderListQuery, OrderReadQuery } from './schemas.ts';
import { presentAggregate, presentCell, presentOrder, presentPostomat } from './present.ts';

/** Adds these routes to `r` itself: a nested Router per resource cost a layer walk on every request. */
export function ordersRoutes(r: Router, deps: AppDeps): void {
  const { db, clock } = deps;

  r.post('/order/create', route({ body: CreateOrderBody }, async ({ body, req }) => {
    try {
      const order = await createOrder(
        { db, clock, randomInt: deps.randomInt, afterCreate: deps.afterOrderCreate },
        { ...body, companyId: lockerCaller(req).companyId },
      );
      return presentOrder(order);
    } catch (err) {
      // The spec: "a nonexistent id fails with a server error".
      if (err instanceof DomainError && err.code === 'POSTOMAT_NOT_FOUND') throw new HttpError(500, 'POSTOMAT_NOT_FOUND');
      throw err;
    }
  }));

  r.get('/order/list', route({ query: OrderListQuery }, async ({ query, req }) => {
    const { companyId } = lockerCaller(req);
    const page = await listOrders(db, {
      companyId,
      status: query.status,
      limit: query.pageSize,
      offset: (query.page - 1) * query.pageSize,
      now: clock.now(),
    });
    return {
      total: page.total,
      data: await withExtras(deps, page.rows, query),
      aggregate: { _sum: presentAggregate(page.sums) },
      expiredAggregate: { _sum: presentAggregate(page.expired.amounts), _count: page.expired.count },
    };
  }));

  r.get('/order/:id', route({ params: IdParams, query: OrderReadQuery }, async ({ params, query, req }) => {
    const found = await findOrderWithDownCode(db, lockerCaller(req).companyId, params.id);
    if (!found) throw new DomainError('ORDER_NOT_FOUND');
    const [one] = await withExtras(deps, [found.order], query, new Map(found.down ? [[found.order.id, found.down]] : []));
    return one;
  }));

  for (const [path, type] of [['down-code', 'DOWN'], ['up-code', 'UP'], ['subtract-code', 'SUBTRACT']] as const) {
    r.get(`/order/:id/${path}`, route({ params: IdParams }, async ({ params, req }) => {
      const order = await findOrder(db, lockerCaller(req).companyId, params.id);
      if (!order) throw new DomainError('ORDER_NOT_FOUND');
      const code = await findCode(db, order.id, type);
      if (!code) throw new DomainError('ORDER_NOT_FOUND');
      return code;
    }));
  }
}

/**
 * Adds the nested objects the flags ask for. `passwords` is always present and holds only the
 * DOWN code: the spec's `withPasswords` has no effect, and the UP code is a recipient secret.
 */
async function withExtras(deps: AppDeps, orders: LockerOrderTable[], flags: OrderExtrasFlags, knownDownCodes?: Map<string, CodeRow>) {
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
    const down = x.downCodes.get(o.id);
    out.passwords = down ? [down] : [];
    return out;
  });
}
