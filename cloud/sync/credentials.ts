/**
 * Checks an agent's MQTT credentials (username = locker id) against the scrypt hash the operator
 * CLI stored. scrypt costs ~50 ms of CPU, so it runs on the thread pool, and a password already
 * verified against the same stored hash is remembered (as a SHA-256, per process): an agent
 * that reconnects after a network blip does not pay again. A new `agent reset` changes the
 * stored hash and so invalidates what was remembered.
 */
import crypto from 'node:crypto';
import type { Db } from '../storage/database.ts';
import { agentSecretHashOf } from '../storage/locker-link-queries.ts';
import { verifyPasswordAsync } from '../domain/secrets.ts';
import { isLockerUsername } from './acl.ts';

const MAX_REMEMBERED = 100_000;

export class AgentCredentials {
  private readonly verified = new Map<string, { stored: string; digest: string }>();

  constructor(private readonly db: Db) {}

  async verify(username: string | undefined, password: Buffer | undefined): Promise<boolean> {
    if (!username || !password || !isLockerUsername(username)) return false;
    const row = await agentSecretHashOf(this.db, username);
    const stored = row?.agentSecretHash;
    if (!stored) return false;
    const digest = crypto.createHash('sha256').update(password).digest('hex');
    const known = this.verified.get(username);
    if (known && known.stored === stored && known.digest === digest) return true;
    if (!(await verifyPasswordAsync(password.toString('utf8'), stored))) return false;
    if (this.verified.size >= MAX_REMEMBERED) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(username, { stored, digest });
    return true;
  }
}
