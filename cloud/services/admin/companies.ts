/** Locker-side companies and their API keys, as the operator manages them. */
import type { Db } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import {
  adjustLockerBalance,
  allLockerCompanies,
  existingLockerCompanyId,
  insertLockerCompany,
  lockerCompanyById,
  lockerCompanyRow,
  updateLockerCompanyRow,
} from '../../storage/locker-company-queries.ts';
import { apiKeyCountOf, apiKeysOf, deleteLockerApiKey, insertLockerApiKey } from '../../storage/locker-key-queries.ts';
import { statsByStatusOf } from '../../storage/order-stats.ts';
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
  await insertLockerCompany(db, row);
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
  if (!(await updateLockerCompanyRow(db, id, set)))
    throw new DomainError('COMPANY_NOT_FOUND', `no locker company ${id}`);
  return lockerCompanyRow(db, id);
}

export async function getLockerCompany(db: Db, id: string) {
  const row = await lockerCompanyById(db, id);
  if (!row) throw new DomainError('COMPANY_NOT_FOUND', `no locker company ${id}`);
  return row;
}

/** A company with how many API keys it has and its active orders per status (from the maintained counters). */
export async function lockerCompanyOverview(db: Db, id: string) {
  const company = await getLockerCompany(db, id);
  const [apiKeyCount, stats] = await Promise.all([apiKeyCountOf(db, id), statsByStatusOf(db, id)]);
  return {
    company,
    apiKeyCount,
    orders: stats
      .filter((s) => Number(s.count) > 0)
      .map((s) => ({ status: s.status, count: Number(s.count), notPaidAmount: Number(s.notPaidAmount) })),
  };
}

export function listLockerCompanies(db: Db) {
  return allLockerCompanies(db);
}

/** Keys of a company without their hashes: the operator tells them apart by title and prefix. */
export async function listLockerApiKeys(db: Db, companyId: string) {
  await getLockerCompany(db, companyId);
  return apiKeysOf(db, companyId);
}

/** Adds (or with a negative amount, takes) money on the company balance; never below zero. */
export async function adjustBalance(db: Db, id: string, deltaMinor: number, now: Date) {
  if (!(await adjustLockerBalance(db, id, deltaMinor, now.toISOString()))) {
    const exists = await existingLockerCompanyId(db, id);
    throw new DomainError(
      exists ? 'INSUFFICIENT_FUNDS' : 'COMPANY_NOT_FOUND',
      exists ? 'the balance cannot go below zero' : `no locker company ${id}`,
    );
  }
  return lockerCompanyRow(db, id);
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
  await insertLockerApiKey(db, row);
  return { id: row.id, companyId, title, keyPrefix: row.keyPrefix, createdAt: row.createdAt, key };
}

export async function revokeLockerApiKey(db: Db, keyId: string) {
  if (!(await deleteLockerApiKey(db, keyId))) throw new DomainError('NOT_FOUND', `no API key ${keyId}`);
}
