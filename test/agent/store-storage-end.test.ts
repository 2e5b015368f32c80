/**
 * The storage end the cloud sends with a placed order (issue 22): kept by the agent's store,
 * moved by a later sync, and a store created before the column gets it when it opens.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AgentStore } from '../../locker-agent/store.ts';
import { order, syncOf, tempDir } from '../helpers/sim-harness.ts';

const END = '2026-12-01T10:00:00.000Z';
const LATER = '2026-12-04T10:00:00.000Z';

describe('agent store: storage end', () => {
  it('keeps the storage end a sync brings, and a later one moves it', () => {
    const dir = tempDir('store-end');
    const store = AgentStore.open(dir.path);
    try {
      store.applySync(syncOf([order('a', ['1111', '2222', '3333'])], 1));
      assert.equal(store.order('a')?.storageEnd, null, 'not placed: no end yet');
      store.applySync(
        syncOf([order('a', ['1111', '2222', '3333'], { status: 'DELIVERED', cellId: '2', storageEnd: END })], 2, false),
      );
      assert.equal(store.order('a')?.storageEnd, END);
      store.applySync(
        syncOf(
          [order('a', ['1111', '2222', '3333'], { status: 'DELIVERED', cellId: '2', storageEnd: LATER })],
          3,
          false,
        ),
      );
      assert.equal(store.order('a')?.storageEnd, LATER);
      // A cloud that sends none (older than the field) leaves what the store knows.
      store.applySync(syncOf([order('a', ['1111', '2222', '3333'], { status: 'DELIVERED', cellId: '2' })], 4, false));
      assert.equal(store.order('a')?.storageEnd, LATER);
      assert.throws(
        () => store.applySync(syncOf([order('b', ['4444', '5555', '6666'], { storageEnd: 'next week' })], 5, false)),
        /datetime|ISO/i,
      );
    } finally {
      store.close();
      dir.remove();
    }
  });

  it('a store created before the column gets it when it opens, its orders kept', () => {
    const dir = tempDir('store-old');
    const raw = new Database(join(dir.path, 'agent.db'));
    raw.exec(`CREATE TABLE orders (order_id TEXT PRIMARY KEY, down_code TEXT NOT NULL, up_code TEXT NOT NULL, subtract_code TEXT NOT NULL,
            not_paid_amount INTEGER NOT NULL, status TEXT NOT NULL, cell_size TEXT, cell_id TEXT)`);
    raw.prepare(`INSERT INTO orders VALUES ('old', '1111', '2222', '3333', 0, 'DELIVERED', NULL, '3')`).run();
    raw.close();
    const store = AgentStore.open(dir.path);
    try {
      assert.equal(store.order('old')?.cellId, '3');
      assert.equal(store.order('old')?.storageEnd, null);
      store.applySync(
        syncOf([order('old', ['1111', '2222', '3333'], { status: 'DELIVERED', cellId: '3', storageEnd: END })], 1),
      );
      assert.equal(store.order('old')?.storageEnd, END);
    } finally {
      store.close();
    }
    // Opening again finds the column there: nothing to add.
    const again = AgentStore.open(dir.path);
    assert.equal(again.order('old')?.storageEnd, END);
    again.close();
    dir.remove();
  });
});
