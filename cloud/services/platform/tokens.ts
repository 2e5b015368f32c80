/**
 * Platform user tokens (JWT, HS256, jsonwebtoken): an access token (1 hour) and a refresh token
 * (10 days). Times come from the injected clock, for signing and for checking alike, so tests
 * move past a lifetime without waiting. A `typ` claim keeps one kind from passing as the other.
 */
import jwt from 'jsonwebtoken';
import type { Clock } from '../../../shared/clock.ts';

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 10 * 24 * 60 * 60;

export interface AccessClaims {
  sub: string;
  typ: 'access';
}

export interface RefreshClaims {
  sub: string;
  typ: 'refresh';
  jti: string;
  exp: number;
}

export class TokenSigner {
  constructor(
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  access(userId: number): string {
    const iat = this.nowSeconds();
    return jwt.sign({ sub: String(userId), typ: 'access', iat, exp: iat + ACCESS_TOKEN_SECONDS }, this.secret, {
      algorithm: 'HS256',
    });
  }

  /** A refresh token and its id and expiry, which the caller records (each works once). */
  refresh(userId: number, jti: string): { token: string; expiresAt: Date } {
    const iat = this.nowSeconds();
    const exp = iat + REFRESH_TOKEN_SECONDS;
    return {
      token: jwt.sign({ sub: String(userId), typ: 'refresh', jti, iat, exp }, this.secret, { algorithm: 'HS256' }),
      expiresAt: new Date(exp * 1000),
    };
  }

  /** The user id of a valid, unexpired access token; undefined otherwise. */
  verifyAccess(token: string): number | undefined {
    const claims = this.verify(token);
    return claims?.typ === 'access' ? userIdOf(claims) : undefined;
  }

  verifyRefresh(token: string): { userId: number; jti: string } | undefined {
    const claims = this.verify(token);
    if (claims?.typ !== 'refresh' || typeof claims.jti !== 'string') return undefined;
    const userId = userIdOf(claims);
    return userId === undefined ? undefined : { userId, jti: claims.jti };
  }

  private verify(token: string): Record<string, unknown> | undefined {
    try {
      const claims = jwt.verify(token, this.secret, { algorithms: ['HS256'], clockTimestamp: this.nowSeconds() });
      return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
}

function userIdOf(claims: Record<string, unknown>): number | undefined {
  const id = Number(claims.sub);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
