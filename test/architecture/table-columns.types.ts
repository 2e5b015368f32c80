/**
 * Checked by the type checker (`npm run typecheck`, run by `npm test`): the Kysely interfaces
 * (cloud/storage `Database`) name exactly the tables and columns the migrations make
 * (table-columns.ts, generated from a migrated database). A column added by a migration and not
 * to its interface, or the other way round, fails here with the table's name.
 */
import type { Database } from '../../cloud/storage/schema.ts';
import type { TABLE_COLUMNS } from './table-columns.ts';

/** The migration runner's own record (cloud/storage/migrations/index.ts), no table of the model. */
type Migrated = Omit<typeof TABLE_COLUMNS, 'schema_migration'>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Tables whose interface and migrated columns differ (never when they agree). */
type ColumnsDiffer = {
  [T in keyof Database & keyof Migrated]: Same<Extract<keyof Database[T], string>, Migrated[T][number]> extends true
    ? never
    : T;
}[keyof Database & keyof Migrated];
/** Tables only one side has. */
type OnlyInInterfaces = Exclude<keyof Database, keyof Migrated>;
type OnlyMigrated = Exclude<keyof Migrated, keyof Database>;

// Each line fails to compile, naming the tables, when its side is not empty.
export const columnsAgree: [ColumnsDiffer] extends [never] ? true : ColumnsDiffer = true;
export const noTableOnlyInInterfaces: [OnlyInInterfaces] extends [never] ? true : OnlyInInterfaces = true;
export const noTableOnlyMigrated: [OnlyMigrated] extends [never] ? true : OnlyMigrated = true;
