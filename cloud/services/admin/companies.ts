/** Locker-side companies and their API keys, as the operator manages them. */
import type { Db } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { hashApiKey, newApiKey } from '../../domain/secrets.ts';
import { DomainError } from '../../domain/errors.ts';

export interface CompanyInput {
  title: string;
  notificationUrl?: string | null;
  defaultDays?: number;
  /** minor units */
  balance?: number;
  orderPrice?: number;
  deliveryPrice?: number;
}

export async function createLockerCompany(db: Db, input: CompanyInput, now: Date) {
  const at = now.toISOString();
  const row = {
    id: newId(),
    title: input.title,
    notificationUrl: input.notificationUrl ?? null,
    defaultDays: input.defaultDays ?? 3,
    balance: input.balance ?? 0,
    orderPrice: input.orderPrice ?? 0,
    deliveryPrice: input.deliveryPrice ?? 0,
    isActive: 1,
    createdAt: at,
    updatedAt: at,
  };
  await db.insertInto('locker_company').values(row).execute();
  return row;
}

export async function updateLockerCompany(
  db: Db,
  id: string,
  changes: Partial<CompanyInput & { isActive: boolean }>,
  now: Date,
) {
  const { isActive, ...rest } = changes;
  const set = {
    ...rest,
    ...(isActive === undefined ? {} : { isActive: isActive ? 1 : 0 }),
    updatedAt: now.toISOString(),
  };
  const res = await db.updateTable('locker_company').set(set).where('id', '=', id).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new DomainError('COMPANY_NOT_FOUND', `no locker company ${id}`);
  return db.selectFrom('locker_company').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function getLockerCompany(db: Db, id: string) {
  const row = await db.selectFrom('locker_company').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new DomainError('COMPANY_NOT_FOUND', `no locker company ${id}`);
  return row;
}

/** A company with how many API keys it has and its active orders per status (from the maintained counters). */
export async function lockerCompanyOverview(db: Db, id: string) {
  const company = await getLockerCompany(db, id);
  const [keys, stats] = await Promise.all([
    db
      .selectFrom('locker_api_key')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('companyId', '=', id)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('order_stats')
      .select(['status', 'count', 'notPaidAmount'])
      .where('companyId', '=', id)
      .orderBy('status')
      .execute(),
  ]);
  return {
    company,
    apiKeyCount: Number(keys.n),
    orders: stats
      .filter((s) => Number(s.count) > 0)
      .map((s) => ({ status: s.status, count: Number(s.count), notPaidAmount: Number(s.notPaidAmount) })),
  };
}

export function listLockerCompanies(db: Db) {
  return db.selectFrom('locker_company').selectAll().orderBy('title').orderBy('id').execute();
}

/** Keys of a company without their hashes: the operator tells them apart by title and prefix. */
export async function listLockerApiKeys(db: Db, companyId: string) {
  await getLockerCompany(db, companyId);
  return db
    .selectFrom('locker_api_key')
    .select(['id', 'companyId', 'title', 'keyPrefix', 'createdAt'])
    .where('companyId', '=', companyId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** Adds (or with a negative amount, takes) money on the company balance; never below zero. */
export async function adjustBalance(db: Db, id: string, deltaMinor: number, now: Date) {
  const res = await db
    .updateTable('locker_company')
    .set((eb) => ({ balance: eb('balance', '+', deltaMinor), updatedAt: now.toISOString() }))
    .where('id', '=', id)
    .where((eb) => eb(eb('balance', '+', deltaMinor), '>=', 0))
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) {
    const exists = await db.selectFrom('locker_company').select('id').where('id', '=', id).executeTakeFirst();
    throw new DomainError(
      exists ? 'INSUFFICIENT_FUNDS' : 'COMPANY_NOT_FOUND',
      exists ? 'the balance cannot go below zero' : `no locker company ${id}`,
    );
  }
  return db.selectFrom('locker_company').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Creates a key and returns it in clear text: the only time anyone sees it. */
export async function createLockerApiKey(db: Db, companyId: string, title = 'default', now: Date) {
  await getLockerCompany(db, companyId);
  const key = newApiKey('plk');
  const row = {
    id: newId(),
    companyId,
    title,
    keyHash: hashApiKey(key),
    keyPrefix: key.slice(0, 8),
    createdAt: now.toISOString(),
  };
  await db.insertInto('locker_api_key').values(row).execute();
  return { id: row.id, companyId, title, keyPrefix: row.keyPrefix, createdAt: row.createdAt, key };
}

export async function revokeLockerApiKey(db: Db, keyId: string) {
  const res = await db.deleteFrom('locker_api_key').where('id', '=', keyId).executeTakeFirst();
  if (Number(res.numDeletedRows) !== 1) throw new DomainError('NOT_FOUND', `no API key ${keyId}`);
}
