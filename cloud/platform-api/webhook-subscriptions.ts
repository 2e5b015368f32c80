/**
 * Webhook subscriptions of a platform company (issue 22), managed by its administrator with a
 * user token under /api/v1/logistic-company/webhook-subscriptions: the Locker API's extension
 * (cloud/webhooks/) with a platform company as the owner. The spec's one-attempt webhooks
 * (/api/v1/logistic-company/webhook) are untouched. Every POST honours `Idempotency-Key`.
 */
import { Router, type Request } from 'express';
import type { AppDeps } from '../deps.ts';
import { platformUser } from '../http/platform-auth.ts';
import { refusedUrl, STRICT_TARGETS } from '../domain/outbound-targets.ts';
import { runIdempotent } from '../services/idempotency.ts';
import type { Tx } from '../services/unit-of-work.ts';
import { idempotencyKeyOf, reusedKeyIs409 } from '../locker-api/idempotency-key.ts';
import { IdParams } from '../locker-api/schemas.ts';
import {
  CreatePlatformSubscriptionBody,
  EventDeliveries,
  EventIdParams,
  EventListQuery,
  PlatformEventPage,
  PlatformSubscription,
  PlatformSubscriptionList,
  PlatformSubscriptionWithSecret,
  ReplayAnswer,
  ReplayBody,
  RotateSecretBody,
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
import { platformOwner } from '../webhooks/owner.ts';
import { platformRoute } from './route.ts';

export function webhookSubscriptionsRouter(deps: AppDeps): Router {
  const r = Router();
  const policy = deps.config.outboundTargets ?? STRICT_TARGETS;
  const SubscriptionBody = CreatePlatformSubscriptionBody.superRefine((b, ctx) => {
    const why = refusedUrl(policy, b.url);
    if (why) ctx.addIssue({ code: 'custom', path: ['url'], message: why });
  });
  const owner = (req: Request) => platformOwner(platformUser(req).companyId);
  /** A POST's work in one unit of work, once per Idempotency-Key (keys kept apart from the Locker API companies'). */
  const once = <T>(req: Request, work: (tx: Tx, now: Date) => Promise<T>) => {
    const now = deps.clock.now();
    const key = idempotencyKeyOf(req, `platform:${platformUser(req).companyId}`, now);
    return reusedKeyIs409(() => runIdempotent(deps.uow, key, (tx) => work(tx, now)));
  };

  r.get(
    '/',
    platformRoute({ response: PlatformSubscriptionList }, ({ req }) =>
      listSubscriptions(deps.db, owner(req), deps.clock.now()),
    ),
  );
  r.post(
    '/',
    platformRoute({ body: SubscriptionBody, response: PlatformSubscriptionWithSecret }, ({ body, req }) =>
      once(req, (tx, now) => createSubscription(tx, owner(req), body, now)),
    ),
  );
  // Events before `/:id`: "events" is no subscription id.
  r.get(
    '/events',
    platformRoute({ query: EventListQuery, response: PlatformEventPage }, ({ query, req }) =>
      listEvents(deps.db, owner(req), query),
    ),
  );
  r.get(
    '/events/:id/deliveries',
    platformRoute({ params: EventIdParams, response: EventDeliveries }, ({ params, req }) =>
      eventDeliveries(deps.db, owner(req), params.id),
    ),
  );
  r.post(
    '/events/:id/replay',
    platformRoute({ params: EventIdParams, body: ReplayBody, response: ReplayAnswer }, ({ params, body, req }) =>
      once(req, (tx, now) => replayEvent(tx, owner(req), params.id, body.subscriptionId, now)),
    ),
  );
  r.delete(
    '/:id',
    platformRoute({ params: IdParams, response: PlatformSubscription }, ({ params, req }) =>
      deps.uow.run((tx) => deleteSubscription(tx, owner(req), params.id, deps.clock.now())),
    ),
  );
  r.post(
    '/:id/rotate-secret',
    platformRoute(
      { params: IdParams, body: RotateSecretBody, response: PlatformSubscriptionWithSecret },
      ({ params, body, req }) =>
        once(req, (tx, now) => rotateSecret(tx, owner(req), params.id, body.overlapHours, now)),
    ),
  );
  return r;
}
