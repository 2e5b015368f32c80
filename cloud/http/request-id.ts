/**
 * Every request has an id: the caller's `X-Request-Id` when it is a short, plain token (a load
 * balancer or an integrator tracing its own calls), a fresh one otherwise. It is answered in the
 * same header, put in error bodies as `requestId`, and added to every log line written while the
 * request is being handled, through an AsyncLocalStorage that the app's logger reads.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

export const REQUEST_ID_HEADER = 'x-request-id';
/** Long enough for a UUID, a W3C trace id or a ULID with a prefix; the id goes into every log line. */
export const REQUEST_ID_MAX = 64;
/** Letters, digits and a few separators: nothing that could forge a log field or a header. */
const ACCEPTED = /^[A-Za-z0-9._:-]+$/;

export interface RequestContext {
  requestId: string;
}

/** Where the current request's id is found by the code it calls; one per app (created by startCloud or buildApp). */
export type RequestScope = AsyncLocalStorage<RequestContext>;
export const newRequestScope = (): RequestScope => new AsyncLocalStorage<RequestContext>();

/** The caller's id when acceptable, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  if (given && given.length <= REQUEST_ID_MAX && ACCEPTED.test(given)) return given;
  return crypto.randomUUID();
}

/** The id of the request being handled, as error bodies show it. */
export const requestIdOf = (req: Request): string | undefined => (req as Request & { id?: string }).id;

export function requestIds(scope: RequestScope): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    (req as Request & { id?: string }).id = requestId;
    res.setHeader('X-Request-Id', requestId);
    scope.run({ requestId }, next);
  };
}

/** A logger that adds the current request's id (when there is one) to each line. */
export function withRequestIds(inner: Logger, scope: RequestScope): Logger {
  const line = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: Record<string, unknown>) => {
    const ctx = scope.getStore();
    inner[level](msg, ctx ? { requestId: ctx.requestId, ...fields } : fields);
  };
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (fields) => withRequestIds(inner.child(fields), scope),
  };
}
