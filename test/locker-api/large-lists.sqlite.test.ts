/** Nested lists over 10,000 lockers answer with bounded work and a free event loop, on SQLite (large-lists-suite.ts). */
import { DIALECTS } from '../helpers/storage.ts';
import { largeListSuite } from './large-lists-suite.ts';

for (const dialect of DIALECTS.filter((d) => d.name === 'sqlite')) largeListSuite(dialect);
