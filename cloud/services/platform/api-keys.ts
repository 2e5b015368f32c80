/**
 * Platform API keys: bound to a company, no expiry. The spec's list shows the `key` values, so
 * a key is kept readable; each request finds its key by the indexed sha256 of what it sent.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { hashApiKey, newApiKey } from '../../domain/secrets.ts';
import {
  deletePlatformApiKeyRow,
  findActiveKeyByHash,
  findPlatformApiKeyOwner,
  insertPlatformApiKey,
  pageOfPlatformApiKeys,
} from '../../storage/api-key-queries.ts';
import { getPlatformCompany } from './companies.ts';

export async function createPlatformApiKey(db: Db, companyId: number, title: string, now: Date) {
  await getPlatformCompany(db, companyId);
  const key = newApiKey('plp');
  return insertPlatformApiKey(db, { companyId, title, key, keyHash: hashApiKey(key), at: now.toISOString() });
}

/** A company's keys, newest first. */
export function listPlatformApiKeys(db: Db, companyId: number, page?: { limit: number; offset: number }) {
  return pageOfPlatformApiKeys(db, companyId, page);
}

/** Deletes a key of `companyId` (the spec: NOT_FOUND when missing, NOT_ACCEPTABLE for another company's). */
export async function deletePlatformApiKey(db: Db, companyId: number | null, id: number) {
  const row = await findPlatformApiKeyOwner(db, id);
  if (!row) throw new DomainError('NOT_FOUND', `no platform API key ${id}`);
  if (companyId !== null && row.companyId !== companyId)
    throw new DomainError('NOT_ACCEPTABLE', `API key ${id} belongs to another company`);
  await deletePlatformApiKeyRow(db, id);
}

export interface ApiKeyCaller {
  keyId: number;
  companyId: number;
  companyType: string;
}

/** The active company a key speaks for, or undefined. */
export async function findApiKeyCaller(db: Db, key: string): Promise<ApiKeyCaller | undefined> {
  return findActiveKeyByHash(db, hashApiKey(key));
}
