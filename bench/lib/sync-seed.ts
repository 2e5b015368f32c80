/** bench:sync's database: a company with an API key, and lockers with 4 cells and agent credentials. */
import SQLite from 'better-sqlite3';
import { hashPassword, newPassword } from '../../cloud/domain/secrets.ts';
import { AGENT_SECRET_SCRYPT_N } from '../../cloud/services/admin/postomats.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { newId } from '../../cloud/storage/ids.ts';

export interface SeededLocker {
  id: string;
  password: string;
}

/** A company with an API key, and lockers with 4 cells and agent credentials, straight into SQLite. */
export async function seed(file: string, count: number, fullCost: number) {
  const storage = await openStorage(file);
  const company = await createLockerCompany(storage.db, { title: 'Sync Bench', balance: 0 }, new Date());
  const { key } = await createLockerApiKey(storage.db, company.id, 'bench', new Date());
  await storage.close();
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  const at = new Date().toISOString();
  // One password and hash for all (seeding 10,000 scrypt hashes would take minutes), at the
  // cost agent reset uses; a sample at the human-password cost for comparison.
  const shared = newPassword();
  const sharedHash = hashPassword(shared, AGENT_SECRET_SCRYPT_N);
  const lockers: SeededLocker[] = [];
  const full: SeededLocker[] = [];
  const insertPostomat = db.prepare(
    `insert into postomat (id, incrementalid, title, shortId, isActive, isConnected, agentSecretHash, createdAt, updatedAt) values (?, ?, ?, ?, 1, 0, ?, ?, ?)`,
  );
  const insertBoard = db.prepare(
    'insert into board (id, postomatId, address, title, createdAt, updatedAt) values (?, ?, 0, ?, ?, ?)',
  );
  const insertCell = db.prepare(
    `insert into cell (id, title, number, size, isActive, isOpen, forRentAvailable, postomatId, boardId, lock, createdAt, updatedAt) values (?, ?, ?, 'M', 1, 0, 0, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count + fullCost; i++) {
      const id = newId();
      const isFull = i >= count;
      const password = isFull ? newPassword() : shared;
      insertPostomat.run(
        id,
        i + 1,
        `Sync ${i}`,
        `SB${i.toString(36).toUpperCase().padStart(5, '0')}`,
        isFull ? hashPassword(password, 16384) : sharedHash,
        at,
        at,
      );
      const boardId = newId();
      insertBoard.run(boardId, id, 'Board 0', at, at);
      for (let n = 1; n <= 4; n++) insertCell.run(newId(), String(n), n, id, boardId, n, at, at);
      (isFull ? full : lockers).push({ id, password });
    }
  })();
  db.close();
  return { key, lockers, full };
}
