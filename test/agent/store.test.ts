import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AgentStore } from '../../locker-agent/store.ts';
import { order, syncOf, tempDir } from '../helpers/sim-harness.ts';

describe('agent store', () => {
  const dir = tempDir('store');
  let store: AgentStore;
  before(() => {
    store = AgentStore.open(dir.path);
  });
  after(() => {
    store.close();
    dir.remove();
  });

  it('runs SQLite in WAL mode with synchronous=FULL for power loss', () => {
    const raw = (store as unknown as { db: { pragma(s: string, o: object): unknown } }).db;
    assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(raw.pragma('synchronous', { simple: true }), 2);
  });

  it('applies a full sync and finds orders by any of their codes', () => {
    store.applySync(syncOf([order('a', ['1111', '2222', '3333'], { notPaidAmount: 250 })], 3));
    assert.equal(store.syncVersion(), 3);
    const [hit] = store.ordersByCode('2222');
    assert.equal(hit.kind, 'UP');
    assert.equal(hit.order.notPaidAmount, 250);
  });

  it('rejects a sync message that breaks the contract', () => {
    assert.throws(() => store.applySync({ ...syncOf([order('b', ['12', '2222', '3333'])], 4) }), /4 digits/);
    assert.equal(store.syncVersion(), 3);
  });

  it('ignores a delta not newer than the stored version', () => {
    const r = store.applySync(syncOf([order('c', ['4444', '5555', '6666'])], 3, false));
    assert.equal(r.applied, false);
    assert.equal(store.order('c'), undefined);
  });

  it('never moves a local status backwards when the cloud has not caught up', () => {
    const intent = store.beginIntent('PLACE', 'c1', 'a', new Date().toISOString());
    store.resolveIntent(intent.intentId, {
      order: { orderId: 'a', status: 'DELIVERED', cellId: 'c1' },
      events: [{ type: 'PLACED', orderId: 'a', cellId: 'c1', at: new Date().toISOString() }],
    });
    store.applySync(syncOf([order('a', ['1111', '2222', '3333'])], 5, false));
    assert.equal(store.order('a')?.status, 'DELIVERED');
    assert.equal(store.order('a')?.cellId, 'c1');
  });

  it('records an intent outcome exactly once', () => {
    const intent = store.beginIntent('PICKUP', 'c1', 'a', new Date().toISOString());
    const first = store.resolveIntent(intent.intentId, {
      events: [{ type: 'PICKED_UP', orderId: 'a', at: new Date().toISOString() }],
    });
    const second = store.resolveIntent(intent.intentId, {
      events: [{ type: 'PICKED_UP', orderId: 'a', at: new Date().toISOString() }],
    });
    assert.equal(first?.length, 1);
    assert.equal(second, undefined);
    assert.equal(store.pendingEvents().filter((e) => e.type === 'PICKED_UP').length, 1);
  });

  it('drops an event from the outbox only when it is acked, and keeps seq growing after reopen', () => {
    const before = store.pendingEvents();
    assert.ok(store.ack(before[0].eventId));
    assert.equal(store.ack(before[0].eventId), false);
    const maxSeq = Math.max(...before.map((e) => e.seq));
    store.close();
    store = AgentStore.open(dir.path);
    assert.equal(store.pendingEvents().length, before.length - 1);
    const next = store.appendEvent({ type: 'LOCKOUT', at: new Date().toISOString() });
    assert.ok(next.seq > maxSeq);
  });

  it('keeps an order with work in flight through a full snapshot that omits it', () => {
    store.applySync(syncOf([order('d', ['7777', '8888', '9999'])], 6, false));
    store.beginIntent('PLACE', 'c2', 'd', new Date().toISOString());
    store.applySync(syncOf([], 7, true));
    assert.ok(store.order('d'));
    assert.equal(store.order('a'), undefined);
  });
});

describe('agent store: returns (issue 22)', () => {
  it("keeps an order's kind, and an older store without the column gets it when opened", async () => {
    const dir = tempDir('store-kind');
    try {
      // A store written by an agent older than returns: the orders table without `kind`.
      const { default: Database } = await import('better-sqlite3');
      const old = new Database(`${dir.path}/agent.db`);
      old.exec(`CREATE TABLE orders (order_id TEXT PRIMARY KEY, down_code TEXT NOT NULL, up_code TEXT NOT NULL, subtract_code TEXT NOT NULL,
                not_paid_amount INTEGER NOT NULL, status TEXT NOT NULL, cell_size TEXT, cell_id TEXT)`);
      old.exec(`INSERT INTO orders VALUES ('old', '1111', '2222', '3333', 0, 'CREATED', NULL, NULL)`);
      old.close();
      const store = AgentStore.open(dir.path);
      try {
        assert.equal(store.order('old')?.kind, 'DELIVERY', 'an order from before returns is a delivery');
        store.applySync(
          syncOf(
            [order('ret', ['4444', '5555', '6666'], { kind: 'RETURN' }), order('del', ['7777', '8888', '9999'])],
            1,
          ),
        );
        assert.equal(store.order('ret')?.kind, 'RETURN');
        assert.equal(store.order('del')?.kind, 'DELIVERY');
        // A later upsert without the field (a delivery) is a delivery.
        store.applySync(syncOf([order('ret', ['4444', '5555', '6666'])], 2, false));
        assert.equal(store.order('ret')?.kind, 'DELIVERY');
      } finally {
        store.close();
      }
    } finally {
      dir.remove();
    }
  });
});
