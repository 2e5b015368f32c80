/**
 * Locker access through the platform (/api/v1/integrations/postomat): the Locker API's
 * operations and shapes, on behalf of the locker company linked to the caller, once the
 * operator has switched access on. The platform validates its own rules first (400); every
 * locker-side failure, not-found and access-not-enabled included, is 502 (locker-side.ts).
 */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { parsePart } from '../http/validation.ts';
import { CreateOrderBody, OrderReadQuery, PostomatReadQuery, CityReadQuery } from '../locker-api/schemas.ts';
import { postomatList, postomatView } from '../locker-api/postomat-operations.ts';
import { cityList, cityView } from '../locker-api/directory-operations.ts';
import {
  createCompanyOrder,
  orderCode,
  orderPage,
  orderView,
  ORDER_CODE_PATHS,
} from '../locker-api/order-operations.ts';
import { collectList } from '../http/stream-json.ts';
import { platformRoute } from './route.ts';
import {
  CityPage,
  CityWithCountry,
  Order,
  OrderCode,
  OrderPage,
  OrderView,
  PostomatPage,
  PostomatView,
} from '../locker-api/responses.ts';
import { found, viaLocker } from './locker-side.ts';
import {
  PlatformCityListQuery,
  PlatformOrderCreateBody,
  PlatformOrderListQuery,
  PlatformPostomatListQuery,
  StringIdParams,
} from './locker-schemas.ts';

/** Mounted at /api/v1/integrations/postomat. */
export function postomatRouter(deps: AppDeps): Router {
  const r = Router();
  const { db } = deps;

  r.get(
    '/list',
    platformRoute({ query: PlatformPostomatListQuery, response: PostomatPage }, ({ query, req }) =>
      viaLocker(deps, req, async () => collectList(await postomatList(db, deps.clock, query))),
    ),
  );
  r.get(
    '/city',
    platformRoute({ query: PlatformCityListQuery, response: CityPage }, ({ query, req }) =>
      viaLocker(deps, req, async () => collectList(await cityList(db, query))),
    ),
  );
  r.get(
    '/city/:id',
    platformRoute(
      { params: StringIdParams, query: CityReadQuery, response: CityWithCountry },
      ({ params, query, req }) =>
        viaLocker(deps, req, async () => found(await cityView(db, params.id, query), 'City not found')),
    ),
  );

  // Idempotency-Key is accepted and has no effect: the spec forwards it without de-duplication.
  r.post(
    '/order/create',
    platformRoute(
      { body: PlatformOrderCreateBody, response: Order },
      ({ body, req }) =>
        viaLocker(deps, req, (companyId) => {
          // The recipient is told of the placement by SMS: the platform's order has no opt-out.
          const order = parsePart('body', CreateOrderBody, { ...body, sendMessage: true });
          return createCompanyOrder(deps, { ...order, companyId });
        }),
      { status: 201 },
    ),
  );
  r.get(
    '/order/list',
    platformRoute({ query: PlatformOrderListQuery, response: OrderPage }, ({ query, req }) =>
      viaLocker(deps, req, async (companyId) => collectList(await orderPage(deps, companyId, query))),
    ),
  );
  r.get(
    '/order/:id',
    platformRoute({ params: StringIdParams, query: OrderReadQuery, response: OrderView }, ({ params, query, req }) =>
      viaLocker(deps, req, (companyId) => orderView(deps, companyId, params.id, query)),
    ),
  );
  for (const [path, type] of ORDER_CODE_PATHS) {
    r.get(
      `/order/:id/${path}`,
      platformRoute({ params: StringIdParams, response: OrderCode }, ({ params, req }) =>
        viaLocker(deps, req, (companyId) => orderCode(deps, companyId, params.id, type)),
      ),
    );
  }

  r.get(
    '/:id',
    platformRoute(
      { params: StringIdParams, query: PostomatReadQuery, response: PostomatView },
      ({ params, query, req }) =>
        viaLocker(deps, req, async () => found(await postomatView(db, params.id, query), 'POSTOMAT_NOT_FOUND')),
    ),
  );
  return r;
}
