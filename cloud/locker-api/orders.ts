/** Locker API: order routes (the operations they call: order-operations.ts). */
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { HttpError } from '../http/http-error.ts';
import { lockerCaller } from '../http/locker-auth.ts';
import { DomainError } from '../domain/errors.ts';
import { idempotencyKeyOf, reusedKeyIs409 } from './idempotency-key.ts';
import { CreateOrderBody, IdParams, OrderListQuery, OrderReadQuery } from './schemas.ts';
import { Order, OrderCode, OrderPage, OrderView } from './responses.ts';
import {
  createCompanyOrder,
  createOrderOnce,
  orderCode,
  orderPage,
  orderView,
  ORDER_CODE_PATHS,
} from './order-operations.ts';

/** Adds these routes to `r` itself: a nested Router per resource cost a layer walk on every request. */
export function ordersRoutes(r: Routes, deps: AppDeps): void {
  r.post(
    '/order/create',
    route({ body: CreateOrderBody, response: Order }, async ({ body, req }) => {
      try {
        const input = { ...body, companyId: lockerCaller(req).companyId };
        // An extension (issue 22): with the header, a repeat answers the same and creates nothing.
        const key = idempotencyKeyOf(req, input.companyId, deps.clock.now());
        if (key) return await reusedKeyIs409(() => createOrderOnce(deps, input, key));
        return await createCompanyOrder(deps, input);
      } catch (err) {
        // The spec: "a nonexistent id fails with a server error".
        if (err instanceof DomainError && err.code === 'POSTOMAT_NOT_FOUND')
          throw new HttpError(500, 'POSTOMAT_NOT_FOUND');
        throw err;
      }
    }),
  );

  r.get(
    '/order/list',
    route({ query: OrderListQuery, response: OrderPage }, ({ query, req }) =>
      orderPage(deps, lockerCaller(req).companyId, query),
    ),
  );

  r.get(
    '/order/:id',
    route({ params: IdParams, query: OrderReadQuery, response: OrderView }, ({ params, query, req }) =>
      orderView(deps, lockerCaller(req).companyId, params.id, query),
    ),
  );

  for (const [path, type] of ORDER_CODE_PATHS) {
    r.get(
      `/order/:id/${path}`,
      route({ params: IdParams, response: OrderCode }, ({ params, req }) =>
        orderCode(deps, lockerCaller(req).companyId, params.id, type),
      ),
    );
  }
}
