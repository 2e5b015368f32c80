/**
 * Demo credentials belong to the database they were seeded into (issue 16, point 14): after a
 * demo on PostgreSQL, a demo on SQLite must not print the PostgreSQL run's keys (refused with
 * 401, every simulated agent refused), and starting one database afresh must not cost another's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { openStorage, type Storage } from '../../cloud/storage/database.ts';
import { seedDemo } from '../../cloud/operator/demo/seed.ts';
import { createUnitOfWork } from '../../cloud/consequences.ts';
import { systemClock } from '../../shared/clock.ts';
import {
  belongsTo,
  demoPlace,
  findDemo,
  noDemoBanner,
  saveDemo,
  type DemoPlace,
} from '../../scripts/demo-credentials.ts';

const seed = (s: Storage) =>
  seedDemo({
    db: s.db,
    uow: createUnitOfWork(s.db, s.changes),
    dialect: s.dialect,
    clock: systemClock,
    progress: () => {},
  });
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] demo credentials per database`, () => {
    let dir: string;
    let sqlite: Storage;
    let other: TestStorage;
    let sqliteUrl: string;
    let here: DemoPlace;
    let there: DemoPlace;
    let mine: Awaited<ReturnType<typeof seed>>;
    let theirs: Awaited<ReturnType<typeof seed>>;
    before(async () => {
      // The usual layout: data/cloud.db (npm start on SQLite), and the other database — another
      // SQLite file in the same folder, or PostgreSQL, whose files also go to ./data.
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-demo-'));
      sqliteUrl = path.join(dir, 'data', 'cloud.db');
      sqlite = await openStorage(sqliteUrl);
      other =
        dialect.name === 'sqlite'
          ? await openOtherSqlite(path.join(dir, 'data', 'other.db'))
          : await openTestStorage(dialect);
      here = await demoPlace(sqlite, sqliteUrl, dir);
      there = await demoPlace(other, other.databaseUrl, dir);
      mine = await seed(sqlite);
      saveDemo(here, mine);
      theirs = await seed(other);
      saveDemo(there, theirs);
    });
    after(async () => {
      await sqlite.close();
      await other.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('names each file after its database and records the database in it', () => {
      assert.equal(here.file, path.join(dir, 'data', 'cloud.demo.json'));
      assert.notEqual(there.file, here.file);
      assert.equal(path.dirname(there.file), path.join(dir, 'data'));
      if (dialect.name === 'postgres')
        assert.match(path.basename(there.file), /^demo\.postgres\.[^.]+\.\d+\.[^.]+\.t_[0-9a-f]+\.json$/);
      assert.equal(read(here.file).database, `sqlite:${sqliteUrl}`);
      assert.equal(read(there.file).database, there.database);
      assert.equal(
        read(here.file).locker.companies[0].apiKey,
        mine.locker.companies[0].apiKey,
        'seeding the other database left this file alone',
      );
      assert.equal(fs.statSync(there.file).mode & 0o777, 0o600);
    });

    it('gives each database its own credentials, which work there and not in the other', async () => {
      const found = await findDemo(sqlite, here);
      assert.equal(found.demo?.locker.companies[0].apiKey, mine.locker.companies[0].apiKey);
      assert.deepEqual(found.notes, []);
      assert.equal((await findDemo(other, there)).demo?.locker.companies[0].apiKey, theirs.locker.companies[0].apiKey);
      assert.equal(await belongsTo(sqlite, theirs), false);
      assert.equal(await belongsTo(other, mine), false);
    });

    it("ignores the old shared demo.json when it holds another database's credentials, and says so", async () => {
      fs.rmSync(here.file);
      const { database: _, ...legacy } = read(there.file);
      fs.writeFileSync(here.legacyFile, JSON.stringify(legacy));
      const found = await findDemo(sqlite, here);
      assert.equal(found.demo, undefined, 'no fleet is started with keys this database would refuse');
      assert.deepEqual(found.notes, [
        `${here.legacyFile} holds demo credentials that this database does not know (seeded into another database, or changed since): ignored.`,
      ]);
      const banner = noDemoBanner(here, sqliteUrl, found.notes);
      assert.ok(
        banner.includes(`The database sqlite:${sqliteUrl} is not empty and has no demo credentials of its own`),
      );
      // Starting afresh removes this database's files only.
      const rm = banner
        .split('\n')
        .find((l) => l.trim().startsWith('rm '))!
        .trim()
        .split(' ')
        .slice(1);
      assert.deepEqual(
        rm.map((f) => path.resolve(f)),
        [sqliteUrl, `${sqliteUrl}-wal`, `${sqliteUrl}-shm`, here.file],
      );
    });

    it("adopts the old shared demo.json when its credentials are this database's", async () => {
      fs.writeFileSync(here.legacyFile, JSON.stringify(mine));
      const found = await findDemo(sqlite, here);
      assert.equal(found.demo?.locker.companies[0].apiKey, mine.locker.companies[0].apiKey);
      assert.equal(read(here.file).database, `sqlite:${sqliteUrl}`, 'copied to the file of this database');
    });

    it('ignores a file that records another database, without looking further into it', async () => {
      fs.writeFileSync(here.file, JSON.stringify({ ...mine, database: there.database }));
      fs.rmSync(here.legacyFile);
      const found = await findDemo(sqlite, here);
      assert.equal(found.demo, undefined);
      assert.deepEqual(found.notes, [
        `${here.file} holds demo credentials of ${there.database}, not of this database: ignored.`,
      ]);
    });
  });
}

async function openOtherSqlite(file: string): Promise<TestStorage> {
  const s = await openStorage(file);
  return { ...s, databaseUrl: file, childEnv: {}, destroy: () => s.close() };
}
