/**
 * Files that hold secrets (the cloud's database with API keys and order codes, the agent's store
 * with codes, configs with passwords, the JWT secret) are created readable by their owner only,
 * whatever the process's umask: a umask of 022 would otherwise make them world-readable.
 *
 * Files that already exist keep their mode: the operator may have chosen it (a backup group).
 */
import fs from 'node:fs';
import path from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates a missing directory (and its missing parents) as 0700; an existing one is left alone. */
export function ensurePrivateDir(dir: string): void {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty and owner-only when it does not exist yet, before a library (SQLite)
 * opens it with its own default mode. Returns whether it was created here.
 */
export function createPrivateFile(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    // The mode given to open() is masked by the umask; fchmod is not.
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Writes a whole file that holds secrets (a config with a password): owner-only from its first byte. */
export function writePrivateFile(file: string, content: string): void {
  ensurePrivateDir(path.dirname(path.resolve(file)));
  // Written beside and renamed: a reader never sees half a file, and an existing file with a
  // wider mode is replaced by an owner-only one.
  const temp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'w', PRIVATE_FILE_MODE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}

/**
 * SQLite makes `-wal` and `-shm` beside a database file; they hold the same data. SQLite gives
 * them the database file's mode, and this makes sure of it for a database created here.
 */
export function restrictSqliteCompanions(file: string): void {
  for (const companion of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      fs.chmodSync(companion, PRIVATE_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Makes a SQLite database file ready to be opened: its folder, and the file itself created
 * owner-only when it is new (SQLite would create it 0644 under the usual umask). Returns
 * whether it was created, so the caller can restrict the companions once they exist.
 */
export function prepareSqliteFile(file: string): boolean {
  if (file === ':memory:' || file === '') return false;
  ensurePrivateDir(path.dirname(path.resolve(file)));
  return createPrivateFile(file);
}
