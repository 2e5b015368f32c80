/**
 * Sign-in and token refresh. A refresh token works once: its record is stamped `usedAt` by a
 * conditional update, so of two concurrent refreshes with one token only one succeeds.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { verifyPasswordAsync } from '../../domain/secrets.ts';
import { newId } from '../../storage/ids.ts';
import {
  findActiveUserByEmail,
  findActiveUserById,
  insertRefreshToken,
  useRefreshToken,
} from '../../storage/platform-user-queries.ts';
import type { TokenSigner } from './tokens.ts';
import { normalizeEmail } from './users.ts';
import { inTransaction } from './tx.ts';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

async function issuePair(db: Db, signer: TokenSigner, userId: number, now: Date): Promise<TokenPair> {
  const jti = newId();
  const refresh = signer.refresh(userId, jti);
  await insertRefreshToken(db, {
    id: jti,
    userId,
    expiresAt: refresh.expiresAt.toISOString(),
    usedAt: null,
    createdAt: now.toISOString(),
  });
  return { accessToken: signer.access(userId), refreshToken: refresh.token };
}

export async function login(
  db: Db,
  signer: TokenSigner,
  email: string,
  password: string,
  now: Date,
): Promise<TokenPair> {
  const user = await findActiveUserByEmail(db, normalizeEmail(email));
  if (!user) throw new DomainError('USER_NOT_FOUND');
  if (!(await verifyPasswordAsync(password, user.passwordHash))) throw new DomainError('PASSWORD_NOT_CORRECT');
  return issuePair(db, signer, user.id, now);
}

export function refresh(db: Db, signer: TokenSigner, token: string, now: Date): Promise<TokenPair> {
  const claims = signer.verifyRefresh(token);
  if (!claims) return Promise.reject(new DomainError('UNAUTHORIZED'));
  return inTransaction(db, async (trx) => {
    const user = await findActiveUserById(trx, claims.userId);
    if (!user) throw new DomainError('USER_NOT_FOUND');
    if (!(await useRefreshToken(trx, claims.jti, user.id, now.toISOString()))) throw new DomainError('UNAUTHORIZED');
    return issuePair(trx, signer, user.id, now);
  });
}

export interface SignedInUser {
  id: number;
  role: string;
  companyId: number;
  companyType: string;
}

/** The user an access token names, if still active (a switched-off user's tokens stop at once). */
export async function userOfAccessToken(db: Db, signer: TokenSigner, token: string): Promise<SignedInUser | undefined> {
  const userId = signer.verifyAccess(token);
  if (userId === undefined) return undefined;
  const user = await findActiveUserById(db, userId);
  return user ? { id: user.id, role: user.role, companyId: user.companyId, companyType: user.companyType } : undefined;
}
