/**
 * Another process holding SQLite's write lock (the operator CLI in a long command, a second
 * cloud) makes the cloud's writes wait, but never its event loop: requests that need no write
 * are answered meanwhile, the writes go through once the lock is free, and past the retry
 * deadline a write is a clear 503, not a frozen process.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStorage } from '../../cloud/storage/database.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BASE = '/api/v1/integration/company';
const sqlite = DIALECTS.find((d) => d.name === 'sqlite')!;

/** A second process that takes the write lock, says so, and keeps it for `holdMs`. */
function holdWriteLock(file: string, holdMs: number): Promise<{ child: ChildProcess; released: Promise<void> }> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('begin immediate');
    db.exec("update locker_company set \\"updatedAt\\" = \\"updatedAt\\"");
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('commit'); process.stdout.write('released\\n'); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ['-e', script, file, String(holdMs)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let onLocked!: () => void;
  let onReleased!: () => void;
  const locked = new Promise<void>((r) => (onLocked = r));
  const released = new Promise<void>((r) => (onReleased = r));
  child.stdout!.on('data', (d) => {
    out += d;
    if (out.includes('locked')) onLocked();
    if (out.includes('released')) onReleased();
  });
  return locked.then(() => ({ child, released }));
}

/** Health requests back to back while `during` runs; the slowest answer. */
async function slowestHealth(cloud: TestCloud, during: Promise<unknown>): Promise<number> {
  let done = false;
  void during.finally(() => (done = true));
  let slowest = 0;
  let answered = 0;
  while (!done) {
    const t = performance.now();
    const res = await cloud.request('GET', '/health');
    assert.equal(res.status, 200);
    slowest = Math.max(slowest, performance.now() - t);
    answered++;
  }
  assert.ok(answered > 5, `health answered ${answered} times while the lock was held`);
  return slowest;
}

describe('[sqlite] a write lock held by another process', () => {
  let cloud: TestCloud;
  let w: LockerWorld;
  before(async () => {
    cloud = await startTestCloud(sqlite);
    w = await seedLockerWorld(cloud.storage.db);
  });
  after(() => cloud.stop());

  it('holds back the writes, not the event loop: health answers at once, and the order is created once the lock is free', async () => {
    const { released } = await holdWriteLock(cloud.storage.databaseUrl, 2_500);
    const create = cloud.request('POST', `${BASE}/order/create`, {
      token: w.companyB.key,
      body: { toUserPhone: '+996555777000', postomatId: w.near.id, sendMessage: false },
    });
    // Before the fix one synchronous busy wait held every request for the whole 2.5 s.
    const slowest = await slowestHealth(cloud, create);
    assert.ok(slowest < 1_000, `a health request waited ${Math.round(slowest)} ms`);
    await released;
    const res = await create;
    assert.equal(res.status, 200, res.text);
    const read = await cloud.request('GET', `${BASE}/order/${res.body.id}`, { token: w.companyB.key });
    assert.equal(read.status, 200);
  });
});

describe('[sqlite] a write lock held past the retry deadline', () => {
  let storage: TestStorage;
  let cloud: TestCloud;
  let w: LockerWorld;
  before(async () => {
    const seeded = await openTestStorage(sqlite);
    const file = seeded.databaseUrl;
    await seeded.close();
    const short = await openStorage(file, { busyRetry: { deadlineMs: 300, maxPauseMs: 20 } });
    storage = { ...short, databaseUrl: file, childEnv: {}, destroy: () => short.close() };
    cloud = await startTestCloud(sqlite, { reuse: storage });
    w = await seedLockerWorld(cloud.storage.db);
  });
  after(async () => {
    await cloud.close();
    await storage.destroy();
  });

  it('answers 503 STORAGE_BUSY with Retry-After and writes nothing', async () => {
    const before = await cloud.storage.db.selectFrom('locker_order').select('id').execute();
    const { released } = await holdWriteLock(cloud.storage.databaseUrl, 1_500);
    const res = await cloud.request('POST', `${BASE}/order/create`, {
      token: w.companyB.key,
      body: { toUserPhone: '+996555777001', postomatId: w.near.id, sendMessage: false },
    });
    assert.equal(res.status, 503, res.text);
    assert.deepEqual(res.body, {
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'STORAGE_BUSY',
      message: 'Service Unavailable',
    });
    assert.equal(res.headers.get('retry-after'), '1');
    await released;
    assert.equal((await cloud.storage.db.selectFrom('locker_order').select('id').execute()).length, before.length);
  });
});
