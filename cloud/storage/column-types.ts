/** How both databases store values: the column types every table schema is written in. */
export type Flag = number; // 0 | 1
export type Iso = string;
/** bigint columns come back as numbers thanks to the pg type parser set in database.ts */
export type Minor = number;
