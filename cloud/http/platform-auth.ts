/**
 * Platform API authentication, with the spec's errors:
 * - company API key (`/api/v1/integrations/*`): `x-api-token`, else `Authorization: Bearer`;
 *   none or empty → 403 TOKEN_NOT_VALID, unknown → 401 UNAUTHORIZED;
 * - user token (JWT): no or empty Bearer → 401 TOKEN_NOT_VALID, invalid or expired →
 *   401 UNAUTHORIZED; then 403 ONLY_FOR_ADMIN or 403 FORBIDDEN (wrong company type).
 * An address whose credentials failed too often is refused with 429 before any is checked
 * (failure-limit.ts); a missing credential is refused without counting, as it costs no lookup.
 */
import type { Request, RequestHandler } from 'express';
import type { Db } from '../storage/database.ts';
import type { CompanyType } from '../domain/platform/enums.ts';
import { findApiKeyCaller, type ApiKeyCaller } from '../services/platform/api-keys.ts';
import { userOfAccessToken, type SignedInUser } from '../services/platform/auth.ts';
import type { TokenSigner } from '../services/platform/tokens.ts';
import { HttpError } from './http-error.ts';
import { bearerToken } from './bearer.ts';
import { addressOf } from './client-address.ts';
import type { AppGuards } from './app-guards.ts';

/** The key a request carries: `x-api-token` wins; without it, the Bearer token. */
export function platformKeyOf(req: Request): string | undefined {
  const header = req.headers['x-api-token'];
  if (header !== undefined) return (Array.isArray(header) ? header[0] : header).trim();
  return bearerToken(req);
}

const companies = new WeakMap<Request, ApiKeyCaller>();
const users = new WeakMap<Request, SignedInUser>();

export function platformCompany(req: Request): ApiKeyCaller {
  const c = companies.get(req);
  if (!c) throw new Error('platformCompany used on a route without apiKeyAuth');
  return c;
}

export function platformUser(req: Request): SignedInUser {
  const u = users.get(req);
  if (!u) throw new Error('platformUser used on a route without userAuth');
  return u;
}

/** Valid keys are cached briefly, as on the Locker API; deleting one empties the caches (credential-caches.ts). */
export function apiKeyAuth(db: Db, { credentials, limits }: AppGuards): RequestHandler {
  const keys = credentials.cache((key) => findApiKeyCaller(db, key));
  return async (req, _res, next) => {
    const address = addressOf(req);
    limits.addresses.check(address);
    const key = platformKeyOf(req);
    if (!key) throw new HttpError(403, 'TOKEN_NOT_VALID');
    let caller = keys.cached(key);
    if (!caller) {
      const attempt = limits.addresses.attempt(address);
      caller = await keys.load(key);
      if (!caller) throw new HttpError(401, 'UNAUTHORIZED');
      limits.addresses.succeeded(attempt);
    }
    companies.set(req, caller);
    next();
  };
}

export interface UserAuthOptions {
  admin?: boolean;
  companyTypes?: readonly CompanyType[];
}

/** The user is read on every request (no cache): a switched-off user's tokens stop at once. */
export function userAuth(
  db: Db,
  signer: TokenSigner,
  { limits }: AppGuards,
  options: UserAuthOptions = {},
): RequestHandler {
  return async (req, _res, next) => {
    const address = addressOf(req);
    limits.addresses.check(address);
    const token = bearerToken(req);
    if (!token) throw new HttpError(401, 'TOKEN_NOT_VALID');
    const attempt = limits.addresses.attempt(address);
    const user = await userOfAccessToken(db, signer, token);
    if (!user) throw new HttpError(401, 'UNAUTHORIZED');
    limits.addresses.succeeded(attempt);
    if (options.admin && user.role !== 'ADMIN') throw new HttpError(403, 'ONLY_FOR_ADMIN');
    if (options.companyTypes && !options.companyTypes.includes(user.companyType as CompanyType))
      throw new HttpError(403, 'FORBIDDEN');
    users.set(req, user);
    next();
  };
}
