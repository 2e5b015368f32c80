/** Platform users: sign-in by email and password (scrypt hash only), role ADMIN or USER, one company each. */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { hashPassword } from '../../domain/secrets.ts';
import type { UserRole } from '../../domain/platform/enums.ts';
import {
  endRefreshTokensOf,
  findUserIdByEmail,
  insertPlatformUser,
  listPlatformUserRows,
  updatePlatformUserRow,
} from '../../storage/platform-user-queries.ts';
import { getPlatformCompany } from './companies.ts';
import { defined, flag } from './tx.ts';

/** The sign-in form validates passwords as length >= 8; shorter ones could never sign in. */
export const MIN_PASSWORD_LENGTH = 8;

export interface UserInput {
  email: string;
  password: string;
  role?: UserRole;
  companyId: number;
  name?: string | null;
}

/** Emails compare as the sign-in form sends them: trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new DomainError('NOT_ACCEPTABLE', `a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
}

/** A user as anyone but the sign-in check sees it: without the hash. */
export function withoutHash<T extends { passwordHash: string }>(u: T): Omit<T, 'passwordHash'> {
  const { passwordHash: _hidden, ...rest } = u;
  return rest;
}

export async function createPlatformUser(db: Db, input: UserInput, now: Date) {
  await getPlatformCompany(db, input.companyId);
  checkPassword(input.password);
  const email = normalizeEmail(input.email);
  const taken = await findUserIdByEmail(db, email);
  if (taken) throw new DomainError('NOT_ACCEPTABLE', `a user with email ${email} exists (id ${taken.id})`);
  const at = now.toISOString();
  const row = await insertPlatformUser(db, {
    email,
    name: input.name ?? null,
    passwordHash: hashPassword(input.password),
    role: input.role ?? 'USER',
    companyId: input.companyId,
    isActive: 1,
    createdAt: at,
    updatedAt: at,
  });
  return withoutHash(row);
}

export async function updatePlatformUser(
  db: Db,
  id: number,
  changes: { password?: string; role?: UserRole; name?: string | null; isActive?: boolean },
  now: Date,
) {
  if (changes.password !== undefined) checkPassword(changes.password);
  const row = await updatePlatformUserRow(db, id, {
    ...defined({ role: changes.role, name: changes.name, isActive: flag(changes.isActive) }),
    ...(changes.password === undefined ? {} : { passwordHash: hashPassword(changes.password) }),
    updatedAt: now.toISOString(),
  });
  if (!row) throw new DomainError('USER_NOT_FOUND', `no platform user ${id}`);
  // A changed password or a switched-off user ends every refresh token issued so far.
  if (changes.password !== undefined || changes.isActive === false) {
    await endRefreshTokensOf(db, id, now.toISOString());
  }
  return withoutHash(row);
}

export async function listPlatformUsers(db: Db, companyId?: number) {
  return (await listPlatformUserRows(db, companyId)).map(withoutHash);
}
