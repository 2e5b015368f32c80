/**
 * Locker API extensions beyond the spec (issue 22): changes after creation and webhook
 * subscriptions. Every POST here honours `Idempotency-Key`.
 */
import type { Request } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import type { Routes } from '../http/routes-under.ts';
import { route } from '../http/route.ts';
import { cuid2, integer } from '../http/query.ts';
import { lockerCaller } from '../http/locker-auth.ts';
import { MAX_STORAGE_DAYS } from '../domain/order-states.ts';
import { refusedUrl, STRICT_TARGETS } from '../domain/outbound-targets.ts';
import { runIdempotent } from '../services/idempotency.ts';
import { CREATE_REDRAW_ATTEMPTS } from '../services/create-order.ts';
import type { Tx } from '../services/unit-of-work.ts';
import { cancelOrder, extendOrder, redirectOrder } from '../services/order-changes.ts';
import {
  CreateSubscriptionBody,
  EventDeliveries,
  EventIdParams,
  EventListQuery,
  EventPage,
  ReplayAnswer,
  ReplayBody,
  RotateSecretBody,
  Subscription,
  SubscriptionList,
  SubscriptionWithSecret,
} from '../webhooks/schemas.ts';
import {
  createSubscription,
  deleteSubscription,
  eventDeliveries,
  listEvents,
  listSubscriptions,
  replayEvent,
  rotateSecret,
} from '../webhooks/subscriptions.ts';
import { lockerOwner } from '../webhooks/owner.ts';
import { IdParams } from './schemas.ts';
import { Order } from './responses.ts';
import { presentOrder } from './present.ts';
import { idempotencyKeyOf, reusedKeyIs409 } from './idempotency-key.ts';
import { DomainError } from '../domain/errors.ts';
import { encodeQr, qrSvg } from '../domain/qr-code.ts';
import { findOrderWithDownCode } from '../storage/order-queries.ts';

export const ExtendBody = z.object({
  days: integer().min(1).max(MAX_STORAGE_DAYS).meta({ description: 'days added to the storage period' }),
});

export const RedirectBody = z.object({
  postomatId: cuid2().meta({ description: 'the locker the order goes to instead' }),
});

export function extensionRoutes(r: Routes, deps: AppDeps): void {
  const policy = deps.config.outboundTargets ?? STRICT_TARGETS;
  const SubscriptionBody = CreateSubscriptionBody.superRefine((b, ctx) => {
    const why = refusedUrl(policy, b.url);
    if (why) ctx.addIssue({ code: 'custom', path: ['url'], message: why });
  });

  /** Runs a POST's work in one unit of work, once per Idempotency-Key; `redraw`: reruns when drawn codes clash (as create does). */
  const once = <T>(req: Request, work: (tx: Tx, now: Date) => Promise<T>, redraw?: number) => {
    const now = deps.clock.now();
    const key = idempotencyKeyOf(req, lockerCaller(req).companyId, now);
    return reusedKeyIs409(() => runIdempotent(deps.uow, key, (tx) => work(tx, now), redraw));
  };
  const company = (req: Request) => lockerCaller(req).companyId;

  r.post(
    '/order/:id/cancel',
    route({ params: IdParams, response: Order }, ({ params, req }) =>
      once(req, async (tx, now) => presentOrder(await cancelOrder(tx, company(req), params.id, now))),
    ),
  );

  r.post(
    '/order/:id/extend',
    route({ params: IdParams, body: ExtendBody, response: Order }, ({ params, body, req }) =>
      once(req, async (tx, now) => presentOrder(await extendOrder(tx, company(req), params.id, body.days, now))),
    ),
  );

  r.post(
    '/order/:id/redirect',
    route({ params: IdParams, body: RedirectBody, response: Order }, ({ params, body, req }) =>
      once(
        req,
        async (tx, now) =>
          presentOrder(
            await redirectOrder(
              tx,
              { randomInt: deps.randomInt, config: deps.config },
              company(req),
              params.id,
              body.postomatId,
              now,
            ),
          ),
        CREATE_REDRAW_ATTEMPTS,
      ),
    ),
  );
  // Returns: the sender's drop-off code as a QR code, for a scanner at the locker (the code's
  // digits, nothing else: the scanner types them like the keypad). A secret: never cached.
  r.get(
    '/order/:id/qr.svg',
    route({ params: IdParams }, async ({ params, req, res }) => {
      const found = await findOrderWithDownCode(deps.db, company(req), params.id);
      if (!found?.down) throw new DomainError('ORDER_NOT_FOUND');
      if (found.order.kind !== 'RETURN')
        throw new DomainError('ORDER_NOT_A_RETURN', `order ${found.order.id} is a delivery`);
      res
        .type('image/svg+xml')
        .set('Cache-Control', 'no-store')
        .send(qrSvg(encodeQr(found.down.password).matrix));
    }),
  );

  const S = '/webhook-subscriptions';
  const owner = (req: Request) => lockerOwner(company(req));
  r.get(
    S,
    route({ response: SubscriptionList }, ({ req }) => listSubscriptions(deps.db, owner(req), deps.clock.now())),
  );
  r.post(
    S,
    route({ body: SubscriptionBody, response: SubscriptionWithSecret }, ({ body, req }) =>
      once(req, (tx, now) => createSubscription(tx, owner(req), body, now)),
    ),
  );
  // Events before `/:id`: "events" is no subscription id.
  r.get(
    `${S}/events`,
    route({ query: EventListQuery, response: EventPage }, ({ query, req }) => listEvents(deps.db, owner(req), query)),
  );
  r.get(
    `${S}/events/:id/deliveries`,
    route({ params: EventIdParams, response: EventDeliveries }, ({ params, req }) =>
      eventDeliveries(deps.db, owner(req), params.id),
    ),
  );
  r.post(
    `${S}/events/:id/replay`,
    route({ params: EventIdParams, body: ReplayBody, response: ReplayAnswer }, ({ params, body, req }) =>
      once(req, (tx, now) => replayEvent(tx, owner(req), params.id, body.subscriptionId, now)),
    ),
  );
  r.delete(
    `${S}/:id`,
    route({ params: IdParams, response: Subscription }, ({ params, req }) =>
      deps.uow.run((tx) => deleteSubscription(tx, owner(req), params.id, deps.clock.now())),
    ),
  );
  r.post(
    `${S}/:id/rotate-secret`,
    route({ params: IdParams, body: RotateSecretBody, response: SubscriptionWithSecret }, ({ params, body, req }) =>
      once(req, (tx, now) => rotateSecret(tx, owner(req), params.id, body.overlapHours, now)),
    ),
  );
}
