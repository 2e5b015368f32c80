/**
 * The demo's credentials belong to the database they were seeded into. `npm start` keeps them in
 * a file named after that database (SQLite `data/cloud.db` → `data/cloud.demo.json`; PostgreSQL
 * → `data/demo.postgres.<host>.<port>.<database>.<schema>.json`), records the database inside,
 * and uses a file only when its credentials are really in the database it opened: a run on
 * PostgreSQL never overwrites the SQLite run's credentials, and a run on SQLite never prints
 * keys that would be refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { hashApiKey, verifyPasswordAsync } from '../cloud/domain/secrets.ts';
import { isPostgresUrl, sqlitePathFromUrl, redactUrl, type Storage } from '../cloud/storage/database.ts';
import type { DemoData } from '../cloud/operator/demo/seed.ts';
import { writePrivateFile } from '../shared/private-files.ts';

export interface DemoFile extends DemoData {
  /** the database it was seeded into, as `databaseName` describes it */
  database?: string;
}

export interface DemoPlace {
  /** a readable name of the database: sqlite:/absolute/path or postgres://host:port/db (schema s) */
  database: string;
  /** this database's demo file */
  file: string;
  /** the one file every database shared before demo files were named per database */
  legacyFile: string;
}

/** Where this database's demo credentials live. PostgreSQL is asked which database and schema it is. */
export async function demoPlace(storage: Storage, databaseUrl: string, cwd = process.cwd()): Promise<DemoPlace> {
  if (!isPostgresUrl(databaseUrl)) {
    const db = path.resolve(cwd, sqlitePathFromUrl(databaseUrl));
    const dir = path.dirname(db);
    return {
      database: `sqlite:${db}`,
      file: path.join(dir, `${path.basename(db).replace(/\.[^.]*$/, '')}.demo.json`),
      legacyFile: path.join(dir, 'demo.json'),
    };
  }
  const {
    rows: [rows],
  } = await sql<{
    database: string;
    schema: string;
  }>`select current_database() as database, current_schema() as schema`.execute(storage.db);
  const u = new URL(databaseUrl);
  const host = u.hostname || 'localhost';
  const port = u.port || '5432';
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  const dir = path.resolve(cwd, 'data');
  return {
    database: `postgres://${host}:${port}/${rows.database} (schema ${rows.schema})`,
    file: path.join(dir, `demo.postgres.${safe(host)}.${port}.${safe(rows.database)}.${safe(rows.schema)}.json`),
    legacyFile: path.join(dir, 'demo.json'),
  };
}

/** Whether the demo's locker credentials (company keys, agent passwords) are in this database. */
export async function belongsTo(storage: Storage, demo: DemoData): Promise<boolean> {
  const { db } = storage;
  for (const c of demo.locker?.companies ?? []) {
    const key = await db
      .selectFrom('locker_api_key')
      .select('companyId')
      .where('keyHash', '=', hashApiKey(c.apiKey))
      .executeTakeFirst();
    if (key?.companyId !== c.id) return false;
  }
  const lockers = [
    ...(demo.locker?.postomats ?? []),
    ...(demo.locker?.postomatWithoutCoordinates ? [demo.locker.postomatWithoutCoordinates] : []),
  ];
  for (const p of lockers) {
    const row = await db.selectFrom('postomat').select('agentSecretHash').where('id', '=', p.id).executeTakeFirst();
    if (!row?.agentSecretHash || !(await verifyPasswordAsync(p.agent.password, row.agentSecretHash))) return false;
  }
  return (demo.locker?.companies.length ?? 0) > 0;
}

export interface FoundDemo {
  demo?: DemoFile;
  /** what start-up should tell the user when it found no credentials for this database */
  notes: string[];
}

function readDemo(file: string): DemoFile | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as DemoFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * This database's demo credentials: its own file, or the shared file of older versions when its
 * credentials are this database's (then copied to this database's file). A file of another
 * database is never used; `notes` says what was found and why it was left alone.
 */
export async function findDemo(storage: Storage, place: DemoPlace): Promise<FoundDemo> {
  const notes: string[] = [];
  for (const file of [place.file, place.legacyFile]) {
    const demo = readDemo(file);
    if (!demo) continue;
    if (demo.database && demo.database !== place.database) {
      notes.push(`${file} holds demo credentials of ${demo.database}, not of this database: ignored.`);
      continue;
    }
    if (!(await belongsTo(storage, demo))) {
      notes.push(
        `${file} holds demo credentials that this database does not know (seeded into another database, or changed since): ignored.`,
      );
      continue;
    }
    if (file !== place.file) saveDemo(place, demo);
    return { demo: { ...demo, database: place.database }, notes };
  }
  return { notes };
}

/** Writes this database's demo file, owner-only, recording the database it belongs to. */
export function saveDemo(place: DemoPlace, demo: DemoData): DemoFile {
  const file: DemoFile = { database: place.database, ...demo };
  writePrivateFile(place.file, `${JSON.stringify(file, null, 2)}\n`);
  return file;
}

/** How to start this one database afresh without touching the others (and their files). */
export function startAfresh(place: DemoPlace, databaseUrl: string): string[] {
  if (isPostgresUrl(databaseUrl)) {
    const schema = /\(schema (.+)\)$/.exec(place.database)?.[1] ?? 'public';
    return [
      `  psql '${redactUrl(databaseUrl)}' -c 'drop schema ${schema} cascade; create schema ${schema}'   (asks for the password; removes every table of this schema)`,
      `  or point DATABASE_URL at an empty database.`,
    ];
  }
  const db = place.database.replace(/^sqlite:/, '');
  const rel = (f: string) => {
    const r = path.relative(process.cwd(), f);
    return r && !r.startsWith('..') ? r : f;
  };
  return [
    `  rm ${[db, `${db}-wal`, `${db}-shm`, place.file].map(rel).join(' ')}`,
    '  (other databases in that folder, and their demo files, are kept)',
  ];
}

/** A database with data but no demo credentials of its own: say which, and how to start it afresh. */
export function noDemoBanner(place: DemoPlace, databaseUrl: string, notes: string[]): string {
  return [
    '',
    `The database ${place.database} is not empty and has no demo credentials of its own (${place.file}), so no simulated lockers were started.`,
    ...notes.map((n) => `  ${n}`),
    'Manage it with `npm run operator -- help`, or start this database afresh with new demo data:',
    ...startAfresh(place, databaseUrl),
    '',
    '',
  ].join('\n');
}
