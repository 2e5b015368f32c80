/** Unique-constraint violations, told apart the same way on both databases. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** PostgreSQL classes and codes of a database that is unavailable for now, not of a wrong statement. */
const PG_TRANSIENT_CLASSES = ['08', '53', '57', '58'];
const PG_TRANSIENT_CODES = ['40001', '40P01', '55P03'];
const NET_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
];
const SQLITE_TRANSIENT = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|NOMEM|PROTOCOL)/;
const DRIVER_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|not queryable|database connection is not open|pool (is|has been) (ended|closed)|driver has already been destroyed/i;

/**
 * The database could not answer now (down, restarting, out of connections, busy, disk full),
 * as opposed to a statement it refused or a fault of the code: work that failed this way is
 * worth trying again later, unchanged, and says nothing about the work itself.
 */
export function isTransientDbError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code.length === 5 && (PG_TRANSIENT_CLASSES.includes(code.slice(0, 2)) || PG_TRANSIENT_CODES.includes(code)))
    return true;
  if (NET_CODES.includes(code) || SQLITE_TRANSIENT.test(code)) return true;
  return typeof e?.message === 'string' && DRIVER_MESSAGES.test(e.message);
}
