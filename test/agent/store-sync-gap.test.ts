/**
 * A delta built on a version the agent does not hold would silently skip the changes in between
 * (an order whose codes never arrive): the store refuses it, says so, and keeps what it had, so
 * the agent asks the cloud again (test/sync/offline.test.ts drives that path end to end).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONTRACT_VERSION } from '../../shared/mqtt/index.ts';
import { AgentStore } from '../../locker-agent/store.ts';
import { order, syncOf, tempDir } from '../helpers/sim-harness.ts';

describe('agent store: gaps in the sync versions', () => {
  const dir = tempDir('store-gap');
  let store: AgentStore;
  before(() => {
    store = AgentStore.open(dir.path);
    store.applySync(syncOf([order('a', ['1111', '2222', '3333'])], 5));
  });
  after(() => {
    store.close();
    dir.remove();
  });

  it('refuses a delta that starts after its version: gap, nothing applied, version kept', () => {
    const skipping = {
      v: CONTRACT_VERSION,
      version: 8,
      full: false,
      since: 7,
      upserts: [order('c', ['7777', '8888', '9999'])],
      removals: ['a'],
    };
    const result = store.applySync(skipping);
    assert.deepEqual(result, { applied: false, version: 5, gap: true });
    assert.equal(store.order('c'), undefined, 'the order after the gap is not taken');
    assert.ok(store.order('a'), 'nothing removed either');
    assert.equal(store.syncVersion(), 5);
  });

  it('applies the delta that starts at its version', () => {
    const next = {
      v: CONTRACT_VERSION,
      version: 8,
      full: false,
      since: 5,
      upserts: [order('b', ['4444', '5555', '6666'])],
      removals: [],
    };
    const result = store.applySync(next);
    assert.equal(result.applied, true);
    assert.equal(result.gap, undefined);
    assert.ok(store.order('b'));
    assert.equal(store.syncVersion(), 8);
  });

  it('takes a full snapshot whatever its version was', () => {
    const result = store.applySync(syncOf([order('d', ['1212', '3434', '5656'])], 20));
    assert.equal(result.applied, true);
    assert.equal(store.syncVersion(), 20);
    assert.equal(store.order('a'), undefined, 'a snapshot replaces the store');
  });
});
