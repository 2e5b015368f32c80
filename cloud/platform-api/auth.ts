/**
 * POST /api/v1/auth/login and /refresh. Sign-in failures are limited per client address and per
 * account, counted before the password is checked (failure-limit.ts): once an account has used up
 * its failures, even the right password is refused with 429 until the window ends by itself.
 */
import crypto from 'node:crypto';
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { withStatuses } from '../http/error-map.ts';
import { guardsOf } from '../http/app-guards.ts';
import { addressOf } from '../http/client-address.ts';
import { login, refresh } from '../services/platform/auth.ts';
import { normalizeEmail } from '../services/platform/users.ts';
import type { TokenSigner } from '../services/platform/tokens.ts';
import { platformRoute } from './route.ts';
import { LoginBody, RefreshBody } from './schemas.ts';
import { TokenPair } from './responses.ts';

/** An account's entry in the failure table: a digest, so a long made-up email costs no more than a short one. */
const accountOf = (email: string) => crypto.createHash('sha256').update(normalizeEmail(email)).digest('base64url');

export function authRouter(deps: AppDeps, signer: TokenSigner): Router {
  const r = Router();
  const { limits } = guardsOf(deps);
  r.post(
    '/login',
    platformRoute({ body: LoginBody, response: TokenPair }, async ({ body, req }) => {
      const account = accountOf(body.email);
      limits.accounts.check(account);
      const byAddress = limits.addresses.attempt(addressOf(req));
      const byAccount = limits.accounts.attempt(account);
      const pair = await login(deps.db, signer, body.email, body.password, deps.clock.now());
      limits.addresses.succeeded(byAddress);
      limits.accounts.succeeded(byAccount);
      return pair;
    }),
  );
  r.post(
    '/refresh',
    platformRoute({ body: RefreshBody, response: TokenPair }, async ({ body, req }) => {
      const byAddress = limits.addresses.attempt(addressOf(req));
      const pair = await withStatuses('platformRefresh', () =>
        refresh(deps.db, signer, body.refreshToken, deps.clock.now()),
      );
      limits.addresses.succeeded(byAddress);
      return pair;
    }),
  );
  return r;
}
