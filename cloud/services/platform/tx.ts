import type { Db } from '../../storage/database.ts';
import { isUniqueViolation } from '../../storage/sql-errors.ts';

/**
 * Runs `fn` in a transaction: the caller's when `db` already is one (the seed writes a whole
 * dataset in one), a new one otherwise. Kysely refuses nested transactions, hence the check.
 */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** Boolean input → the 0/1 flag columns store; undefined stays undefined (field not changed). */
export const flag = (v: boolean | undefined): 0 | 1 | undefined => (v === undefined ? undefined : v ? 1 : 0);

/** Drops undefined fields, so an update sets only what was given. */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Runs `fn` in a new transaction, and again (a few times) when a unique index refused a value
 * it drew (a track code, locker codes) because a concurrent transaction drew it too: on
 * PostgreSQL the refused statement spoils the transaction, so only a whole rerun can recover.
 */
export async function transactionRedrawing<T>(db: Db, fn: (trx: Db) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn);
    } catch (err) {
      if (isUniqueViolation(err) && attempt < attempts) continue;
      throw err;
    }
  }
}
