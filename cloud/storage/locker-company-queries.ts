/**
 * Locker API companies: their rows as the operator manages them, and their balance, which order
 * creation debits. Balance changes are conditional updates, so concurrent ones never take it
 * below zero.
 */
import type { Db } from './database.ts';
import type { Selectable } from 'kysely';
import type { LockerCompanyTable } from './schema.ts';
import { prepared } from './prepared.ts';

export async function insertLockerCompany(db: Db, row: LockerCompanyTable): Promise<void> {
  await db.insertInto('locker_company').values(row).execute();
}

/** Whether the company was there to change. */
export async function updateLockerCompanyRow(
  db: Db,
  id: string,
  set: Partial<LockerCompanyTable> & { updatedAt: string },
): Promise<boolean> {
  const res = await db.updateTable('locker_company').set(set).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function lockerCompanyById(db: Db, id: string) {
  return db.selectFrom('locker_company').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A company known to exist (an order's, or one read back after a change). */
export async function lockerCompanyRow(db: Db, id: string): Promise<Selectable<LockerCompanyTable>> {
  const [row] = await companyById(db, id);
  if (!row) throw new Error(`locker company ${id} not found`);
  return row;
}

const companyById = prepared<[id: string], Selectable<LockerCompanyTable>>(1, (db: Db, id) =>
  db.selectFrom('locker_company').selectAll().where('id', '=', id),
);

/** The company's id if it exists, active or not. */
export function existingLockerCompanyId(db: Db, id: string) {
  return db.selectFrom('locker_company').select('id').where('id', '=', id).executeTakeFirst();
}

/** The company's id and title, as staff see them beside an order. */
export function lockerCompanySummary(db: Db, id: string) {
  return db.selectFrom('locker_company').select(['id', 'title']).where('id', '=', id).executeTakeFirst();
}

/** Every company, active or not, by title. */
export function allLockerCompanies(db: Db) {
  return db.selectFrom('locker_company').selectAll().orderBy('title').orderBy('id').execute();
}

/** The ids of every company, in no particular order (the expiry job walks them one by one). */
export function lockerCompanyIds(db: Db) {
  return db.selectFrom('locker_company').select('id').execute();
}

/** Adds `deltaMinor` (negative: takes) unless the balance would go below zero; whether it did. */
export async function adjustLockerBalance(db: Db, id: string, deltaMinor: number, at: string): Promise<boolean> {
  const res = await db
    .updateTable('locker_company')
    .set((eb) => ({ balance: eb('balance', '+', deltaMinor), updatedAt: at }))
    .where('id', '=', id)
    .where((eb) => eb(eb('balance', '+', deltaMinor), '>=', 0))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Takes `due` from the balance if it holds that much; whether it did. */
export async function debitLockerBalance(db: Db, id: string, due: number, at: string): Promise<boolean> {
  const debited = await db
    .updateTable('locker_company')
    .set((eb) => ({ balance: eb('balance', '-', due), updatedAt: at }))
    .where('id', '=', id)
    .where('balance', '>=', due)
    .executeTakeFirst();
  return Number(debited.numUpdatedRows) === 1;
}
