/**
 * Platform API keys: bound to a company, no expiry. The spec's list shows the `key` values, so
 * a key is kept readable; each request finds its key by the indexed sha256 of what it sent.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { hashApiKey, newApiKey } from '../../domain/secrets.ts';
import { getPlatformCompany } from './companies.ts';

export async function createPlatformApiKey(db: Db, companyId: number, title: string, now: Date) {
  await getPlatformCompany(db, companyId);
  const key = newApiKey('plp');
  const at = now.toISOString();
  return db
    .insertInto('platform_api_key')
    .values({ companyId, title, key, keyHash: hashApiKey(key), createdAt: at, updatedAt: at })
    .returning(['id', 'title', 'key', 'companyId', 'createdAt', 'updatedAt'])
    .executeTakeFirstOrThrow();
}

/** A company's keys, newest first. */
export async function listPlatformApiKeys(db: Db, companyId: number, page?: { limit: number; offset: number }) {
  const base = db.selectFrom('platform_api_key').where('companyId', '=', companyId);
  let q = base.select(['id', 'title', 'key', 'companyId', 'createdAt', 'updatedAt']).orderBy('id', 'desc');
  if (page) q = q.limit(page.limit).offset(page.offset);
  const [total, data] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q.execute(),
  ]);
  return { total: Number(total.n), data };
}

/** Deletes a key of `companyId` (the spec: NOT_FOUND when missing, NOT_ACCEPTABLE for another company's). */
export async function deletePlatformApiKey(db: Db, companyId: number | null, id: number) {
  const row = await db
    .selectFrom('platform_api_key')
    .select(['id', 'companyId'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new DomainError('NOT_FOUND', `no platform API key ${id}`);
  if (companyId !== null && row.companyId !== companyId)
    throw new DomainError('NOT_ACCEPTABLE', `API key ${id} belongs to another company`);
  await db.deleteFrom('platform_api_key').where('id', '=', id).execute();
}

export interface ApiKeyCaller {
  keyId: number;
  companyId: number;
  companyType: string;
}

/** The active company a key speaks for, or undefined. */
export async function findApiKeyCaller(db: Db, key: string): Promise<ApiKeyCaller | undefined> {
  return db
    .selectFrom('platform_api_key as k')
    .innerJoin('platform_company as c', 'c.id', 'k.companyId')
    .select(['k.id as keyId', 'k.companyId', 'c.type as companyType'])
    .where('k.keyHash', '=', hashApiKey(key))
    .where('c.isActive', '=', 1)
    .executeTakeFirst();
}
