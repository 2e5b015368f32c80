/**
 * `/api/v1/sandbox/*`, mounted only when SANDBOX=true (docs/sandbox.md): an integrator drives
 * the simulated lockers through the real path with the key its orders were made with: a Locker
 * API company's key (`Authorization: Bearer`), or a marketplace's platform key (`x-api-token`),
 * which acts as its locker company, as the platform's locker access does. A company reaches
 * only its own orders (another's is "not found", as everywhere); lockers are shared by all
 * companies in the Locker API, and so is cutting a simulated locker's network.
 */
import type { Express, Request, RequestHandler } from 'express';
import type { AppDeps } from '../deps.ts';
import { guardsOf, type AppGuards } from '../http/app-guards.ts';
import { apiKeyAuth, platformCompany } from '../http/platform-auth.ts';
import { lockerCompanyOf } from '../services/platform/locker-access.ts';
import { LOCKER_ACCESS_OFF } from '../platform-api/locker-side.ts';
import type { Db } from '../storage/database.ts';
import { HttpError } from '../http/http-error.ts';
import { lockerAuth, lockerCaller } from '../http/locker-auth.ts';
import { route, sendJson } from '../http/route.ts';
import { routesUnder } from '../http/routes-under.ts';
import { IdParams } from '../locker-api/schemas.ts';
import { getPostomat } from '../services/admin/postomats.ts';
import { expireNow } from '../services/sandbox/expire.ts';
import {
  act,
  NoFleet,
  SandboxRefusal,
  setLockerNetwork,
  type SandboxAction,
  type SandboxTimings,
} from '../services/sandbox/flows.ts';
import type { SandboxSlot } from '../services/sandbox/fleet-port.ts';
import { ExpiredOrder, LockerNetwork, SandboxOutcome } from '../services/sandbox/outcomes.ts';

export const SANDBOX_BASE = '/api/v1/sandbox';

/** The spec's error body, with what the locker showed when it was asked. */
class RefusalError extends HttpError {
  constructor(
    statusCode: number,
    message: string,
    code: string,
    private readonly display?: string | null,
  ) {
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

/** A platform key comes in `x-api-token`; anything else is a Locker API key. */
const isPlatformCall = (req: Request) => req.headers['x-api-token'] !== undefined;

function sandboxAuth(db: Db, guards: AppGuards): RequestHandler {
  const locker = lockerAuth(db, guards);
  const platform = apiKeyAuth(db, guards);
  return (req, res, next) => (isPlatformCall(req) ? platform(req, res, next) : locker(req, res, next));
}

/** The Locker API company whose orders the caller may act on. */
async function companyOf(db: Db, req: Request): Promise<string> {
  if (!isPlatformCall(req)) return lockerCaller(req).companyId;
  const id = await lockerCompanyOf(db, platformCompany(req).companyId);
  if (!id) throw new RefusalError(403, LOCKER_ACCESS_OFF, 'LOCKER_ACCESS_OFF');
  return id;
}

export interface SandboxOptions {
  slot: SandboxSlot;
  timings?: Partial<SandboxTimings>;
}

export function mountSandbox(app: Express, deps: AppDeps, json: RequestHandler, options: SandboxOptions): void {
  const appGuards = guardsOf(deps);
  const perKey = appGuards.limits.requests('sandbox:key', (req) =>
    isPlatformCall(req) ? `platform:${platformCompany(req).keyId}` : lockerCaller(req).keyId,
  );
  const guards = [sandboxAuth(deps.db, appGuards), perKey];
  const api = routesUnder(app, SANDBOX_BASE, { guards, body: json });
  const flow = { db: deps.db, timings: options.timings };

  for (const action of ['place', 'collect', 'subtract'] as const satisfies SandboxAction[]) {
    api.post(
      `/orders/:id/${action}`,
      route({ params: IdParams, response: SandboxOutcome }, async ({ params, req, res }) => {
        const companyId = await companyOf(deps.db, req);
        const outcome = await refusalsAsHttp(() =>
          act({ ...flow, fleet: options.slot.attached }, companyId, params.id, action),
        );
        // Done at the locker, not yet heard by the cloud (the locker is offline): accepted, not finished.
        sendJson(res, outcome.reachedCloud ? 200 : 202, outcome);
      }),
    );
  }
  api.post(
    '/orders/:id/expire',
    route({ params: IdParams, response: ExpiredOrder }, async ({ params, req }) => {
      const companyId = await companyOf(deps.db, req);
      return refusalsAsHttp(() => expireNow(deps.uow, companyId, params.id, deps.clock.now()));
    }),
  );

  for (const [path, online] of [
    ['offline', false],
    ['online', true],
  ] as const) {
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
