/**
 * The marketplace (/api/v1/integrations/market-company): pickup points and cities
 * (market-points.ts), its locker orders, and its parcels: creation under an Idempotency-Key,
 * reads by track code, the marketplace status, and redirects. Marketplace companies only.
 */
import { Router, type Request } from 'express';
import type { AppDeps } from '../deps.ts';
import { DomainError } from '../domain/errors.ts';
import { IDEMPOTENCY_KEY_MAX, requestFingerprint } from '../domain/platform/market-idempotency.ts';
import { toMinorUnits } from '../domain/money.ts';
import { HttpError, validationError } from '../http/http-error.ts';
import { platformCompany } from '../http/platform-auth.ts';
import { OrderReadQuery } from '../locker-api/schemas.ts';
import { orderPage, presentOrders } from '../locker-api/order-operations.ts';
import { idempotent } from '../services/platform/market-idempotency.ts';
import { placeProblems } from '../services/platform/market-places.ts';
import {
  createMarketParcel,
  lockerOrderOf,
  marketParcel,
  marketParcelOfOrder,
  marketParcelStatus,
  marketParcelView,
  type MarketParcelInput,
} from '../services/platform/market-parcels.ts';
import { redirectMarketParcel } from '../services/platform/market-redirect.ts';
import { collectList } from '../http/stream-json.ts';
import { platformRoute } from './route.ts';
import { viaLocker } from './locker-side.ts';
import { PlatformOrderListQuery, StringIdParams } from './locker-schemas.ts';
import { MarketParcelBody, RedirectBody, TrackCodeParams } from './market-schemas.ts';
import { presentParcel, presentParcelView } from './market-present.ts';
import { pickupPointRoutes } from './market-points.ts';
import { OrderPage, OrderView } from '../locker-api/responses.ts';
import { MarketParcelStatus, Parcel, ParcelView, RedirectAnswer } from './responses.ts';

/** Mounted at /api/v1/integrations/market-company. */
export function marketRouter(deps: AppDeps): Router {
  const r = Router();
  const { db, clock } = deps;
  r.use((req, _res, next) => {
    if (platformCompany(req).companyType !== 'MARKETPLACE') throw new HttpError(403, 'FORBIDDEN');
    next();
  });
  pickupPointRoutes(r, deps);

  // The spec: "500 if the locker service returns an error".
  r.get(
    '/order/list',
    platformRoute({ query: PlatformOrderListQuery, response: OrderPage }, ({ query, req }) =>
      viaLocker(deps, req, async (companyId) => collectList(await orderPage(deps, companyId, query)), 500),
    ),
  );

  r.get(
    '/order/:id',
    platformRoute(
      {
        params: StringIdParams,
        query: OrderReadQuery,
        response: Parcel.extend({ postomatOrder: OrderView.nullable() }),
      },
      async ({ params, query, req }) => {
        const parcel = await marketParcelOfOrder(db, platformCompany(req).companyId, params.id);
        const order = await lockerOrderOf(db, parcel);
        return {
          ...presentParcel(parcel),
          postomatOrder: order ? (await presentOrders(deps, [order], query))[0] : null,
        };
      },
    ),
  );

  r.post(
    '/parcel/create',
    platformRoute({ body: MarketParcelBody, response: ParcelView }, async ({ body, req, res }) => {
      const marketId = platformCompany(req).companyId;
      const request = {
        companyId: marketId,
        key: idempotencyKey(req),
        fingerprint: requestFingerprint(body),
        now: clock.now(),
      };
      const answer = await idempotent(deps.uow, request, async (tx) => {
        const problems = [
          ...(await placeProblems(tx.db, 'receiver', body.receiver)),
          ...(await placeProblems(tx.db, 'sender', body.sender)),
        ];
        if (problems.length) throw validationError(problems.map((p) => `body/${p}`).join(', '));
        return presentParcelView(await createMarketParcel(tx, deps, marketId, parcelInput(body)));
      });
      if (answer.replayed) res.set('Idempotent-Replayed', 'true');
      return answer.body;
    }),
  );

  r.get(
    '/parcel/track-code/:trackCode',
    platformRoute({ params: TrackCodeParams, response: ParcelView }, async ({ params, req }) =>
      presentParcelView(
        await marketParcelView(db, await marketParcel(db, platformCompany(req).companyId, params.trackCode)),
      ),
    ),
  );

  r.get(
    '/parcel/track-code/:trackCode/status',
    platformRoute({ params: TrackCodeParams, response: MarketParcelStatus }, async ({ params, req }) => {
      const parcel = await marketParcel(db, platformCompany(req).companyId, params.trackCode);
      return { trackCode: parcel.trackCode, status: await marketParcelStatus(db, parcel) };
    }),
  );

  r.put(
    '/parcel/track-code/:trackCode/redirect',
    platformRoute(
      { params: TrackCodeParams, body: RedirectBody, response: RedirectAnswer },
      async ({ params, body, req }) => {
        const target =
          body.toWarehouseId !== undefined ? { warehouseId: body.toWarehouseId } : { postomatId: body.toPostomatId! };
        const parcel = await deps.uow.run(
          (tx) => redirectMarketParcel(tx, deps, platformCompany(req).companyId, params.trackCode, target),
          { redrawAttempts: 5 },
        );
        return { message: 'parcel redirected', parcel: presentParcel(parcel) };
      },
    ),
  );
  return r;
}

/** The spec makes the header required; its catalogue names the error IDEMPOTENCY_KEY_REQUIRED. */
function idempotencyKey(req: Request): string {
  const key = req.get('idempotency-key')?.trim();
  if (!key) throw new DomainError('IDEMPOTENCY_KEY_REQUIRED');
  if (key.length > IDEMPOTENCY_KEY_MAX)
    throw validationError(`headers/idempotency-key must NOT have more than ${IDEMPOTENCY_KEY_MAX} characters`);
  return key;
}

function parcelInput(body: MarketParcelBody): MarketParcelInput {
  const party = (p: MarketParcelBody['receiver']) => ({
    name: p.name,
    phone: p.phone,
    address: p.address,
    countryId: p.country,
    cityId: p.city,
  });
  return {
    deliveryMethod: body.deliveryMethod,
    postomatId: body.postomatId,
    warehouseId: body.warehouseId,
    createPostomatOrder: body.createPostomatOrder,
    trackCode: body.trackCode,
    weight: body.weight,
    price: toMinorUnits(body.price),
    currency: body.currency.toUpperCase(),
    receiver: party(body.receiver),
    sender: party(body.sender),
  };
}
