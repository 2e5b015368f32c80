/** POST /api/v1/auth/login and /refresh. */
import { Router } from 'express';
import type { AppDeps } from '../deps.ts';
import { withStatuses } from '../http/error-map.ts';
import { login, refresh } from '../services/platform/auth.ts';
import type { TokenSigner } from '../services/platform/tokens.ts';
import { platformRoute } from './route.ts';
import { LoginBody, RefreshBody } from './schemas.ts';

export function authRouter(deps: AppDeps, signer: TokenSigner): Router {
  const r = Router();
  r.post('/login', platformRoute({ body: LoginBody }, ({ body }) => login(deps.db, signer, body.email, body.password, deps.clock.now())));
  // The spec: refresh answers both of its errors with 400.
  r.post('/refresh', platformRoute({ body: RefreshBody }, ({ body }) =>
    withStatuses({ UNAUTHORIZED: 400, USER_NOT_FOUND: 400 }, () => refresh(deps.db, signer, body.refreshToken, deps.clock.now())),
  ));
  return r;
}
