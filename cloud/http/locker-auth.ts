/**
 * Locker API authentication: `Authorization: Bearer <API_KEY>`, else 401 `Unauthorized`.
 * An address that failed too often is refused with 429 before its key is looked up
 * (failure-limit.ts); valid keys are cached briefly (credential-caches.ts).
 */
import type { RequestHandler, Request } from 'express';
import type { Db } from '../storage/database.ts';
import { callerOfKey } from '../storage/locker-key-queries.ts';
import { hashApiKey } from '../domain/secrets.ts';
import { HttpError } from './http-error.ts';
import { bearerToken } from './bearer.ts';
import { addressOf } from './client-address.ts';
import type { AppGuards } from './app-guards.ts';

export interface LockerCaller {
  companyId: string;
  keyId: string;
}

const callers = new WeakMap<Request, LockerCaller>();

export function lockerCaller(req: Request): LockerCaller {
  const c = callers.get(req);
  if (!c) throw new Error('lockerCaller used on a route without lockerAuth');
  return c;
}

export function lockerAuth(db: Db, { credentials, limits }: AppGuards): RequestHandler {
  const keys = credentials.cache((token) => callerOfKey(db, hashApiKey(token)));
  return (req, _res, next) => {
    const address = addressOf(req);
    limits.addresses.check(address);
    const token = bearerToken(req);
    if (!token) throw new HttpError(401, 'Unauthorized');
    const known = keys.cached(token);
    // A cached key admits in the same tick; only a lookup waits.
    if (known) {
      callers.set(req, known);
      return next();
    }
    const attempt = limits.addresses.attempt(address);
    return keys.load(token).then((caller) => {
      if (!caller) throw new HttpError(401, 'Unauthorized');
      limits.addresses.succeeded(attempt);
      callers.set(req, caller);
      next();
    });
  };
}
