/** API keys and agent passwords: random, shown once, stored as hashes. */
import crypto from 'node:crypto';

export function newApiKey(prefix = 'plk'): string {
  return `${prefix}_${crypto.randomBytes(24).toString('base64url')}`;
}

/** API keys have 192 bits of entropy, so a fast hash is enough and keeps lookups cheap. */
export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

export function newPassword(bytes = 18): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/**
 * Human passwords need a slow salted hash. Format: scrypt$N$r$p$salt$hash (base64url); the
 * cost travels with the hash, so benchmarks may seed cheaper ones (`N`) without changing checks.
 */
export function hashPassword(password: string, N = 16384): string {
  const salt = crypto.randomBytes(16);
  const r = 8,
    p = 1;
  const hash = crypto.scryptSync(password, salt, 32, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export function verifyPassword(password: string, stored: string): boolean {
  const [alg, N, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = crypto.scryptSync(password, Buffer.from(salt, 'base64url'), expected.length, { N: +N, r: +r, p: +p });
  return crypto.timingSafeEqual(expected, actual);
}

/** verifyPassword on libuv's thread pool: a sign-in or a broker checking many agents must not stall the event loop. */
export async function verifyPasswordAsync(password: string, stored: string): Promise<boolean> {
  const [alg, N, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await new Promise<Buffer>((resolve, reject) =>
    crypto.scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: +N, r: +r, p: +p }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
  return crypto.timingSafeEqual(expected, actual);
}
