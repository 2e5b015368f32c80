/**
 * Records as the operator's JSON shows them: booleans as booleans, money in major units (as
 * the Locker API shows it). Secrets never pass through here: callers hand in rows without them.
 */
import { toMajor } from '../domain/money.ts';
import type { LockerCompanyTable } from '../storage/schema.ts';

export const bool = (flag: number) => flag === 1;

export function presentCompany(c: LockerCompanyTable) {
  return {
    id: c.id,
    title: c.title,
    notificationUrl: c.notificationUrl,
    defaultDays: c.defaultDays,
    balance: toMajor(c.balance),
    orderPrice: toMajor(c.orderPrice),
    deliveryPrice: toMajor(c.deliveryPrice),
    isActive: bool(c.isActive),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** Turns every 0/1 field named is* into a boolean, leaving the rest as it is. */
export function withBooleans<T extends object>(row: T): T {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, /^is[A-Z]/.test(k) && typeof v === 'number' ? v === 1 : v]),
  ) as T;
}

/** The named money fields in major units, the rest as it is. */
export function withMajor<T extends object, K extends keyof T>(row: T, fields: readonly K[]): T {
  return { ...row, ...Object.fromEntries(fields.map((f) => [f, toMajor(row[f] as number)])) };
}
