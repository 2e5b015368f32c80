/**
 * Clients and suppliers written: inserts, updates, and the company's client code counter,
 * moved by a conditional update so a concurrent move makes the caller read again.
 */
import type { Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { PlatformDatabase } from './platform-schema.ts';

/** Moves the company's counter from `from` to `to`; false when another writer moved it first. */
export async function moveClientCodeCounter(db: Db, companyId: number, from: number, to: number): Promise<boolean> {
  const moved = await db
    .updateTable('platform_company')
    .set({ lastClientCode: to })
    .where('id', '=', companyId)
    .where('lastClientCode', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/**
 * Locks the company's row by a no-op update until the transaction ends, so registrations of
 * one phone run one after another; false when there is no such company.
 */
export async function lockCompanyForClients(db: Db, companyId: number): Promise<boolean> {
  const locked = await db
    .updateTable('platform_company')
    .set((eb) => ({ lastClientCode: eb.ref('lastClientCode') }))
    .where('id', '=', companyId)
    .executeTakeFirst();
  return Number(locked.numUpdatedRows) === 1;
}

export function insertClient(db: Db, client: Insertable<PlatformDatabase['platform_client']>) {
  return db.insertInto('platform_client').values(client).returningAll().executeTakeFirstOrThrow();
}

export function updateClientRow(db: Db, id: number, changes: Updateable<PlatformDatabase['platform_client']>) {
  return db.updateTable('platform_client').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function insertSupplier(db: Db, supplier: Insertable<PlatformDatabase['supplier']>) {
  return db.insertInto('supplier').values(supplier).returningAll().executeTakeFirstOrThrow();
}

/** Inserts the supplier unless the company has one with its phone already (unique per company and phone). */
export async function insertSupplierUnlessPhoneTaken(
  db: Db,
  supplier: Insertable<PlatformDatabase['supplier']>,
): Promise<void> {
  await db
    .insertInto('supplier')
    .values(supplier)
    .onConflict((oc) => oc.columns(['companyId', 'phone']).doNothing())
    .execute();
}

/** The changed supplier, or undefined when there is none with this id. */
export function updateSupplierRow(db: Db, id: number, changes: Updateable<PlatformDatabase['supplier']>) {
  return db.updateTable('supplier').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}
