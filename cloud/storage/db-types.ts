/** The storage layer's own types, apart from database.ts so that migrations and helpers need not import it. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

export type Db = Kysely<Database>;
