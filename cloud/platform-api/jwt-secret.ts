/**
 * The secret that signs platform user tokens. `JWT_SECRET` when set (required with
 * NODE_ENV=production, see config.ts). Otherwise one is generated on first start and kept in
 * `jwt-secret` beside the SQLite database (./data for PostgreSQL), readable only by this user,
 * so `npm start` works out of the box and sign-ins survive restarts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isPostgresUrl, sqlitePathFromUrl } from '../storage/database.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../shared/private-files.ts';

export function jwtSecretFile(databaseUrl: string): string | undefined {
  if (isPostgresUrl(databaseUrl)) return path.resolve('data', 'jwt-secret');
  const file = sqlitePathFromUrl(databaseUrl);
  return file === ':memory:' ? undefined : path.join(path.dirname(path.resolve(file)), 'jwt-secret');
}

export function resolveJwtSecret(config: { JWT_SECRET?: string; DATABASE_URL: string }): string {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  const file = jwtSecretFile(config.DATABASE_URL);
  if (!file) return crypto.randomBytes(48).toString('base64url');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
    throw new Error(
      `the JWT secret in ${file} is shorter than 32 characters: delete the file (signed-in users sign in again) or set JWT_SECRET`,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(48).toString('base64url');
  ensurePrivateDir(path.dirname(file));
  try {
    // 'wx': of two processes starting together, the second reads the first one's secret.
    fs.writeFileSync(file, `${secret}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw new Error(`cannot store a JWT secret in ${file}: ${(err as Error).message} (or set JWT_SECRET)`);
  }
}
