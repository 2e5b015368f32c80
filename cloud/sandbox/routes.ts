/**
 * `/api/v1/sandbox/*`, mounted only when SANDBOX=true (docs/sandbox.md): an integrator drives
 * the simulated lockers through the real path with the same Locker API key as the orders. A
 * company reaches only its own orders (another's is "not found", as everywhere); lockers are
 * shared by all companies in the Locker API, and so is cutting a simulated locker's network.
 */
import type { Express, RequestHandler } from 'express';
import type { AppDeps } from '../deps.ts';
import { guardsOf } from '../http/app-guards.ts';
import { HttpError } from '../http/http-error.ts';
import { lockerAuth, lockerCaller } from '../http/locker-auth.ts';
import { route, sendJson } from '../http/route.ts';
import { routesUnder } from '../http/routes-under.ts';
import { IdParams } from '../locker-api/schemas.ts';
import { getPostomat } from '../services/admin/postomats.ts';
import { expireNow } from './expire.ts';
import { act, NoFleet, SandboxRefusal, setLockerNetwork, type SandboxAction, type SandboxTimings } from './flows.ts';
import type { SandboxSlot } from './fleet-port.ts';
import { ExpiredOrder, LockerNetwork, SandboxOutcome } from './responses.ts';

export const SANDBOX_BASE = '/api/v1/sandbox';

/** The spec's error body, with what the locker showed when it was asked. */
class RefusalError extends HttpError {
  constructor(statusCode: number, message: string, code: string, private readonly display?: string | null) {
    super(statusCode, message, { code });
  }

  override toBody(): Record<string, unknown> {
    return this.display === undefined ? super.toBody() : { ...super.toBody(), display: this.display };
  }
}

function asHttp(err: unknown): unknown {
  if (err instanceof SandboxRefusal) return new RefusalError(409, err.message, err.code, err.display);
  if (err instanceof NoFleet) return new RefusalError(503, err.message, 'SANDBOX_NO_FLEET');
  return err;
}

const refusalsAsHttp = <T>(work: () => Promise<T>): Promise<T> =>
  work().catch((err) => {
    throw asHttp(err);
  });

export interface SandboxOptions {
  slot: SandboxSlot;
  timings?: Partial<SandboxTimings>;
}

export function mountSandbox(app: Express, deps: AppDeps, json: RequestHandler, options: SandboxOptions): void {
  const appGuards = guardsOf(deps);
  const perKey = appGuards.limits.requests('locker:key', (req) => lockerCaller(req).keyId);
  const guards = [lockerAuth(deps.db, appGuards), perKey];
  const api = routesUnder(app, SANDBOX_BASE, { guards, body: json });
  const flow = { db: deps.db, timings: options.timings };

  for (const action of ['place', 'collect', 'subtract'] as const satisfies SandboxAction[]) {
    api.post(
      `/orders/:id/${action}`,
      route({ params: IdParams, response: SandboxOutcome }, async ({ params, req, res }) => {
        const outcome = await refusalsAsHttp(() => act({ ...flow, fleet: options.slot.attached }, lockerCaller(req).companyId, params.id, action));
        // Done at the locker, not yet heard by the cloud (the locker is offline): accepted, not finished.
        sendJson(res, outcome.reachedCloud ? 200 : 202, outcome);
      }),
    );
  }
  api.post('/orders/:id/expire', route({ params: IdParams, response: ExpiredOrder }, ({ params, req }) => refusalsAsHttp(() => expireNow(deps.uow, lockerCaller(req).companyId, params.id, deps.clock.now()))));

  for (const [path, online] of [['offline', false], ['online', true]] as const) {
    api.post(
      `/lockers/:id/${path}`,
      route({ params: IdParams, response: LockerNetwork }, async ({ params }) => {
        await getPostomat(deps.db, params.id); // a locker the cloud does not know is 404, as in the Locker API
        return refusalsAsHttp(() => setLockerNetwork(options.slot.attached, params.id, online));
      }),
    );
  }
  // Under the base, a path no route serves is authenticated before it is a 404, like the Locker API's.
  app.use(SANDBOX_BASE, ...guards);
}
