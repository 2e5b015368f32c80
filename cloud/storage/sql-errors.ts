/** Unique-constraint violations, told apart the same way on both databases. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Serialization failures and deadlocks on PostgreSQL, busy database on SQLite: safe to retry. */
export function isRetryable(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '40001' || e?.code === '40P01' || e?.code === 'SQLITE_BUSY';
}
