import type { Db } from '../../storage/database.ts';

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
