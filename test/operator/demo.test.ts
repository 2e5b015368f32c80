import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { verifyPassword, hashApiKey } from '../../cloud/domain/secrets.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { listPostomats } from '../../cloud/storage/postomat-queries.ts';
import { collectBatches } from '../../cloud/storage/batches.ts';
import { useOperator } from './harness.ts';

const CUID2 = /^[a-z][0-9a-z]{1,31}$/;

/** The contract the simulator and the lead's tools rely on. */
function assertDemoShape(locker: any) {
  assert.ok(locker.companies.length >= 2);
  for (const c of locker.companies) {
    assert.match(c.id, CUID2);
    assert.match(c.apiKey, /^plk_/);
    assert.equal(typeof c.balance, 'number');
  }
  assert.ok(
    locker.companies.some((c: any) => c.orderPrice === 0 && c.deliveryPrice === 0),
    'one free company',
  );
  assert.ok(
    locker.companies.some((c: any) => c.orderPrice === 150),
    'one paid company',
  );

  assert.ok(locker.postomats.length >= 3);
  for (const p of locker.postomats) {
    assert.match(p.id, CUID2);
    assert.equal(typeof p.shortId, 'string');
    assert.equal(typeof p.title, 'string');
    assert.match(p.cityId, CUID2);
    assert.match(p.districtId, CUID2);
    assert.equal(typeof p.lat, 'number');
    assert.equal(typeof p.lng, 'number');
    assert.ok(p.cells.length >= 8 && p.cells.length <= 16, `${p.shortId} has ${p.cells.length} cells`);
    assert.ok(new Set(p.cells.map((c: any) => c.size)).size >= 2, 'cells of at least two sizes');
    assert.ok(new Set(p.cells.map((c: any) => c.board)).size === 2, 'two boards');
    for (const c of p.cells) {
      assert.match(c.id, CUID2);
      assert.ok(Number.isInteger(c.number) && Number.isInteger(c.board) && Number.isInteger(c.lock));
      assert.ok(['S', 'M', 'L', 'XL'].includes(c.size));
    }
    assert.equal(p.agent.username, p.id);
    assert.equal(typeof p.agent.password, 'string');
  }
  assert.ok(locker.inactivePostomatIds.length >= 1);
  for (const id of locker.inactivePostomatIds) assert.match(id, CUID2);
  assert.match(locker.postomatWithoutCoordinates.id, CUID2);
  assert.equal(typeof locker.postomatWithoutCoordinates.shortId, 'string');
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] seed-demo`, () => {
    const op = useOperator(dialect);

    it('fills an empty database with what it prints', async () => {
      const { locker } = await op.json('seed-demo');
      assertDemoShape(locker);
      const db = op.storage().db;

      const key = await db
        .selectFrom('locker_api_key')
        .select('companyId')
        .where('keyHash', '=', hashApiKey(locker.companies[0].apiKey))
        .executeTakeFirst();
      assert.equal(key?.companyId, locker.companies[0].id, 'the printed key is the stored one');
      const first = locker.postomats[0];
      const stored = await db
        .selectFrom('postomat')
        .select('agentSecretHash')
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
      assert.ok(
        verifyPassword(first.agent.password, stored.agentSecretHash!),
        'the printed agent password is the stored one',
      );
      const cell = first.cells[0];
      const row = await db
        .selectFrom('cell')
        .innerJoin('board', 'board.id', 'cell.boardId')
        .select(['cell.number', 'cell.lock', 'board.address'])
        .where('cell.id', '=', cell.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.number, row.address, row.lock], [cell.number, cell.board, cell.lock]);

      // What the Locker API will show: only active lockers; by distance, not the one without coordinates.
      const activeIds = (await collectBatches((await listPostomats(db, {})).batches)).map((p) => p.id);
      for (const id of locker.inactivePostomatIds) assert.ok(!activeIds.includes(id));
      assert.ok(activeIds.includes(locker.postomatWithoutCoordinates.id));
      const near = await collectBatches(
        (await listPostomats(db, { near: { lat: 42.87, lng: 74.6, at: new Date() } })).batches,
      );
      assert.ok(!near.some((p) => p.id === locker.postomatWithoutCoordinates.id));
      assert.equal(near.length, locker.postomats.length);

      const cities = await db.selectFrom('city').select('isActive').execute();
      assert.ok(
        cities.some((c) => c.isActive === 0),
        'an inactive city',
      );
    });

    it('refuses a database that already has companies or lockers', async () => {
      const err = await op.fails(1, 'seed-demo');
      assert.match(err, /seed-demo fills an empty database only; this one has 2 locker companies and 7 lockers/);
      const count = await op
        .storage()
        .db.selectFrom('locker_company')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 2, 'nothing was added');
    });
  });

  describe(`[${dialect.name}] seed-demo text output`, () => {
    const op = useOperator(dialect);

    it('prints a readable summary with keys and agent passwords', async () => {
      const r = await op.run('seed-demo');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Express Courier .* order 150\.00/);
      assert.match(r.stdout, /key plk_/);
      assert.match(r.stdout, /BSK101 +TSUM Chui/);
      assert.match(r.stdout, /inactive lockers: [a-z0-9]+, [a-z0-9]+/);
      assert.match(r.stderr, /lockers: 7/, 'progress goes to stderr');
    });
  });
}

describe('seed-demo as a real process', () => {
  it('prints the JSON dataset of a fresh SQLite file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-seed-'));
    const file = path.join(dir, 'cloud.db');
    try {
      const { stdout } = await promisify(execFile)('npx', ['tsx', 'cloud/operator/cli.ts', 'seed-demo', '--json'], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, DATABASE_URL: file },
        timeout: 60_000,
      });
      const out = JSON.parse(stdout);
      assert.deepEqual(Object.keys(out), ['locker', 'platform']);
      assert.equal(out.platform.logist.companyId, 1);
      assertDemoShape(out.locker);
      const s = await openStorage(file);
      try {
        const n = await s.db
          .selectFrom('postomat')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(n.n), out.locker.postomats.length + out.locker.inactivePostomatIds.length + 1);
      } finally {
        await s.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
