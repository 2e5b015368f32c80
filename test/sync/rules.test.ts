/** The sync's rules, directly: what to send an agent, what an event may do, who may use which topic. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideLockerEvent, eventDetail, heldByLocker, planSync } from '../../cloud/domain/locker-sync.ts';
import { eventTime } from '../../cloud/sync/ingest.ts';
import { isLockerUsername, mayPublish, maySubscribe } from '../../cloud/sync/acl.ts';

describe('planSync: what an agent that announced its version gets', () => {
  it('nothing when it is up to date', () => assert.deepEqual(planSync(7, 7, 0), { kind: 'none' }));
  it('a delta since its version when the changes after it are on record', () =>
    assert.deepEqual(planSync(3, 7, 2), { kind: 'delta', since: 3 }));
  it('a full snapshot for a fresh store, an agent ahead of the cloud, or one older than the record', () => {
    assert.deepEqual(planSync(0, 7, 0), { kind: 'full' });
    assert.deepEqual(planSync(9, 7, 0), { kind: 'full' });
    assert.deepEqual(planSync(1, 7, 2), { kind: 'full' });
  });
});

describe('heldByLocker: the orders an agent holds', () => {
  const o = { postomatId: 'L1', status: 'CREATED', isActive: 1 };
  it('its active CREATED and DELIVERED orders', () => {
    assert.equal(heldByLocker(o, 'L1'), true);
    assert.equal(heldByLocker({ ...o, status: 'DELIVERED' }, 'L1'), true);
  });
  it('not finished ones, archived ones, nor those of another locker (redirected away)', () => {
    assert.equal(heldByLocker({ ...o, status: 'COMPLETED' }, 'L1'), false);
    assert.equal(heldByLocker({ ...o, status: 'SUBTRACTED' }, 'L1'), false);
    assert.equal(heldByLocker({ ...o, isActive: 0 }, 'L1'), false);
    assert.equal(heldByLocker(o, 'L2'), false);
  });
});

describe('decideLockerEvent: what an event from a locker may do', () => {
  const facts = (type: string, status: string, extra: object = {}) => ({
    type,
    orderId: 'o1',
    cellKnown: true,
    order: { postomatId: 'L1', status },
    lockerId: 'L1',
    ...extra,
  });

  it('moves its own order one step along the state machine', () => {
    assert.deepEqual(decideLockerEvent(facts('PLACED', 'CREATED')), { action: 'apply', to: 'DELIVERED' });
    assert.deepEqual(decideLockerEvent(facts('PICKED_UP', 'DELIVERED')), { action: 'apply', to: 'COMPLETED' });
    assert.deepEqual(decideLockerEvent(facts('SUBTRACTED', 'DELIVERED')), { action: 'apply', to: 'SUBTRACTED' });
  });

  it('stores the events that change no order', () => {
    for (const type of ['CODE_REJECTED', 'LOCKOUT', 'DOOR_LEFT_OPEN', 'CELL_FAULT'])
      assert.deepEqual(decideLockerEvent({ type, cellKnown: false, lockerId: 'L1' }), { action: 'store' });
  });

  it("rejects another locker's order and an unknown one alike", () => {
    const other = decideLockerEvent(facts('PLACED', 'CREATED', { order: { postomatId: 'L2', status: 'CREATED' } }));
    const unknown = decideLockerEvent(facts('PLACED', 'CREATED', { order: undefined }));
    assert.deepEqual(other, { action: 'reject', reason: 'not an order of this locker' });
    assert.deepEqual(unknown, other);
  });

  it('rejects what the state machine forbids, a placement in an unknown cell, an order event without an order', () => {
    assert.deepEqual(decideLockerEvent(facts('PLACED', 'DELIVERED')), {
      action: 'reject',
      reason: 'order is DELIVERED, cannot become DELIVERED',
    });
    assert.deepEqual(decideLockerEvent(facts('PICKED_UP', 'SUBTRACTED')), {
      action: 'reject',
      reason: 'order is SUBTRACTED, cannot become COMPLETED',
    });
    assert.equal(decideLockerEvent(facts('PLACED', 'CREATED', { cellKnown: false })).action, 'reject');
    assert.equal(decideLockerEvent(facts('PICKED_UP', 'DELIVERED', { orderId: undefined })).action, 'reject');
  });

  it('lets a pickup wait for the placement it follows', () => {
    assert.equal(decideLockerEvent(facts('PICKED_UP', 'CREATED')).action, 'wait');
    assert.equal(decideLockerEvent(facts('SUBTRACTED', 'CREATED')).action, 'wait');
  });

  it('keeps a reason or fault for the operator, never a code', () => {
    assert.equal(eventDetail({ reason: 'NOT_PAID' }), 'NOT_PAID');
    assert.equal(eventDetail({ fault: 'JAMMED' }), 'JAMMED');
    assert.equal(eventDetail({}), null);
  });
});

describe('eventTime: when a locker says it happened', () => {
  const now = new Date('2026-05-01T12:00:00.000Z');
  it("takes the locker's time (a placement recorded offline counts from the placement)", () => {
    assert.equal(
      eventTime('2026-05-01T09:00:00.000Z', '2026-05-01T08:00:00.000Z', now).toISOString(),
      '2026-05-01T09:00:00.000Z',
    );
  });
  it('never after now, never before the status it follows', () => {
    assert.equal(
      eventTime('2026-05-02T00:00:00.000Z', '2026-05-01T08:00:00.000Z', now).toISOString(),
      now.toISOString(),
    );
    assert.equal(
      eventTime('2026-04-01T00:00:00.000Z', '2026-05-01T08:00:00.000Z', now).toISOString(),
      '2026-05-01T08:00:00.000Z',
    );
  });
});

describe('broker ACL', () => {
  const locker = { kind: 'locker' as const, lockerId: 'L1' };
  it('a locker publishes only its own connection, cells, events and responses', () => {
    for (const t of ['connection', 'cells', 'events', 'responses'])
      assert.equal(mayPublish(locker, `lockers/L1/${t}`), true, t);
    for (const t of ['acks', 'sync', 'commands']) assert.equal(mayPublish(locker, `lockers/L1/${t}`), false, t);
    assert.equal(mayPublish(locker, 'lockers/L2/events'), false);
    assert.equal(mayPublish(locker, 'other/topic'), false);
  });
  it('a locker subscribes only to its own acks, sync and commands, without wildcards', () => {
    for (const t of ['acks', 'sync', 'commands']) assert.equal(maySubscribe(locker, `lockers/L1/${t}`), true, t);
    for (const f of ['lockers/L1/events', 'lockers/L2/sync', 'lockers/+/sync', 'lockers/L1/#', '#'])
      assert.equal(maySubscribe(locker, f), false, f);
  });
  it('the cloud may do anything', () => {
    assert.equal(mayPublish({ kind: 'cloud' }, 'lockers/L2/sync'), true);
    assert.equal(maySubscribe({ kind: 'cloud' }, 'lockers/+/events'), true);
  });
  it('locker ids that could widen a topic are not usernames', () => {
    assert.equal(isLockerUsername('ck2x9q0abcdefghijklmnopqr'), true);
    for (const u of ['a/b', '+', '#', '', '$cloud']) assert.equal(isLockerUsername(u), false, u);
  });
});
