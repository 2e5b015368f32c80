/**
 * Locker API authentication: `Authorization: Bearer <API_KEY>`, else 401 `Unauthorized`.
 * Known keys are cached briefly (key-cache.ts).
 */
import type { RequestHandler, Request } from 'express';
import type { Db } from '../storage/database.ts';
import { hashApiKey } from '../domain/secrets.ts';
import type { Clock } from '../clock.ts';
import { HttpError } from './http-error.ts';
import { bearerToken } from './bearer.ts';
import { cachedLookup } from './key-cache.ts';

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

export function lockerAuth(db: Db, clock: Clock, cacheMs = 5_000): RequestHandler {
  const callerOf = cachedLookup(clock, cacheMs, (token) =>
    db
      .selectFrom('locker_api_key as k')
      .innerJoin('locker_company as c', 'c.id', 'k.companyId')
      .select(['k.id as keyId', 'k.companyId'])
      .where('k.keyHash', '=', hashApiKey(token))
      .where('c.isActive', '=', 1)
      .executeTakeFirst(),
  );
  const admit = (req: Request, caller: LockerCaller | null, next: () => void) => {
    if (!caller) throw new HttpError(401, 'Unauthorized');
    callers.set(req, caller);
    next();
  };
  return (req, _res, next) => {
    const token = bearerToken(req);
    if (!token) throw new HttpError(401, 'Unauthorized');
    const caller = callerOf(token);
    // A cached key admits in the same tick; only a lookup waits.
    if (caller instanceof Promise) return caller.then((c) => admit(req, c, next));
    admit(req, caller, next);
  };
}
