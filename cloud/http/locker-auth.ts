/**
 * Locker API authentication: `Authorization: Bearer <API_KEY>`, else 401 `Unauthorized`.
 * Known keys are cached briefly: a key lookup per request would cost more than the read it guards.
 */
import type { RequestHandler, Request } from 'express';
import type { Db } from '../storage/database.ts';
import { hashApiKey } from '../domain/secrets.ts';
import type { Clock } from '../clock.ts';
import { HttpError } from './http-error.ts';
import { bearerToken } from './bearer.ts';

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
  const cache = new Map<string, { caller: LockerCaller | null; until: number }>();
  return async (req, _res, next) => {
    const token = bearerToken(req);
    if (!token) throw new HttpError(401, 'Unauthorized');
    const now = clock.now().getTime();
    // Keyed by the token itself: a hit costs no hashing. The token is in this process's memory
    // for the request anyway; the database only ever holds its hash.
    let hit = cache.get(token);
    if (!hit || hit.until < now) {
      const hash = hashApiKey(token);
      const row = await db
        .selectFrom('locker_api_key as k')
        .innerJoin('locker_company as c', 'c.id', 'k.companyId')
        .select(['k.id as keyId', 'k.companyId'])
        .where('k.keyHash', '=', hash)
        .where('c.isActive', '=', 1)
        .executeTakeFirst();
      if (cache.size > 10_000) cache.clear();
      hit = { caller: row ?? null, until: now + cacheMs };
      cache.set(token, hit);
    }
    if (!hit.caller) throw new HttpError(401, 'Unauthorized');
    callers.set(req, hit.caller);
    next();
  };
}
