/**
 * Files holding secrets are created owner-only whatever the umask (issue 16, point 10): the
 * cloud's SQLite database and its -wal/-shm (API keys, order codes), the JWT secret, the agent's
 * store (codes) and the agent configs the tools write (MQTT password).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStorage } from '../../cloud/storage/database.ts';
import { resolveJwtSecret } from '../../cloud/platform-api/jwt-secret.ts';
import { AgentStore } from '../../locker-agent/store.ts';
import { writePrivateFile } from '../../shared/private-files.ts';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const octal = (mode: number) => mode.toString(8).padStart(4, '0');

describe('files with secrets are owner-only', () => {
  let dir: string;
  let umask: number;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-modes-'));
    // The usual umask, under which a file is created 0644 unless its creator says otherwise.
    umask = process.umask(0o022);
  });
  after(() => {
    process.umask(umask);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the cloud database, its -wal and -shm, and the folder made for it', async () => {
    const file = path.join(dir, 'data', 'cloud.db');
    const storage = await openStorage(file);
    try {
      await storage.db.selectFrom('locker_company').select('id').execute();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) {
        assert.ok(fs.existsSync(f), `${f} exists`);
        assert.equal(octal(modeOf(f)), '0600', f);
      }
      assert.equal(octal(modeOf(path.dirname(file))), '0700', 'the data folder it created');
    } finally {
      await storage.close();
    }
    // Reopened after the -wal was removed at close: SQLite makes a new one with the file's mode.
    const again = await openStorage(file);
    try {
      await again.db.selectFrom('locker_company').select('id').execute();
      assert.equal(octal(modeOf(`${file}-wal`)), '0600');
    } finally {
      await again.close();
    }
  });

  it('leaves the mode of an existing database alone (the operator chose it)', async () => {
    const file = path.join(dir, 'shared.db');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o640);
    const storage = await openStorage(file);
    await storage.close();
    assert.equal(octal(modeOf(file)), '0640');
  });

  it('the generated JWT secret', () => {
    const db = path.join(dir, 'jwt', 'cloud.db');
    resolveJwtSecret({ DATABASE_URL: db, JWT_SECRET: undefined });
    assert.equal(octal(modeOf(path.join(dir, 'jwt', 'jwt-secret'))), '0600');
  });

  it("the agent's store and its folder", () => {
    const dataDir = path.join(dir, 'agent', 'data');
    const store = AgentStore.open(dataDir);
    try {
      for (const f of ['agent.db', 'agent.db-wal', 'agent.db-shm'])
        assert.equal(octal(modeOf(path.join(dataDir, f))), '0600', f);
      assert.equal(octal(modeOf(dataDir)), '0700');
    } finally {
      store.close();
    }
  });

  it('an agent config written by the tools, also over an existing world-readable one', () => {
    const file = path.join(dir, 'agent.json');
    fs.writeFileSync(file, '{}');
    assert.equal(octal(modeOf(file)), '0644');
    writePrivateFile(file, JSON.stringify({ cloud: { password: 'secret' } }));
    assert.equal(octal(modeOf(file)), '0600');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).cloud.password, 'secret');
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
  });
});
