/**
 * Platform API keys: bound to a company. The spec's list shows the `key` values, so a key is
 * kept readable; a request finds its key by the indexed sha256 of what it sent.
 */
import type { Db } from './database.ts';

const KEY_COLUMNS = ['id', 'title', 'key', 'companyId', 'createdAt', 'updatedAt'] as const;

export function insertPlatformApiKey(
  db: Db,
  key: { companyId: number; title: string; key: string; keyHash: string; at: string },
) {
  return db
    .insertInto('platform_api_key')
    .values({
      companyId: key.companyId,
      title: key.title,
      key: key.key,
      keyHash: key.keyHash,
      createdAt: key.at,
      updatedAt: key.at,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A company's keys, newest first, and how many it has. */
export async function pageOfPlatformApiKeys(db: Db, companyId: number, page?: { limit: number; offset: number }) {
  const base = db.selectFrom('platform_api_key').where('companyId', '=', companyId);
  let q = base.select(KEY_COLUMNS).orderBy('id', 'desc');
  if (page) q = q.limit(page.limit).offset(page.offset);
  const [total, data] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q.execute(),
  ]);
  return { total: Number(total.n), data };
}

export function findPlatformApiKeyOwner(db: Db, id: number) {
  return db.selectFrom('platform_api_key').select(['id', 'companyId']).where('id', '=', id).executeTakeFirst();
}

export async function deletePlatformApiKeyRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('platform_api_key').where('id', '=', id).execute();
}

/** The key with this hash, if its company is active: who the caller speaks for. */
export function findActiveKeyByHash(db: Db, keyHash: string) {
  return db
    .selectFrom('platform_api_key as k')
    .innerJoin('platform_company as c', 'c.id', 'k.companyId')
    .select(['k.id as keyId', 'k.companyId', 'c.type as companyType'])
    .where('k.keyHash', '=', keyHash)
    .where('c.isActive', '=', 1)
    .executeTakeFirst();
}
