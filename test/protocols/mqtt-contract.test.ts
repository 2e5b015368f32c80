import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONTRACT_VERSION,
  CommandMessage,
  LockerEvent,
  SyncMessage,
  allLockersTopic,
  parseLockerTopic,
  topics,
} from '../../shared/mqtt/index.ts';

describe('MQTT topics', () => {
  it('keeps every topic under lockers/{id}/', () => {
    assert.equal(topics.events('L1'), 'lockers/L1/events');
    assert.equal(topics.sync('L1'), 'lockers/L1/sync');
    assert.equal(allLockersTopic('events'), 'lockers/+/events');
  });

  it('refuses a locker id that would escape its topic subtree', () => {
    assert.throws(() => topics.events('a/b'));
    assert.throws(() => topics.events('#'));
  });

  it('parses a topic back to locker id and name, and rejects others', () => {
    assert.deepEqual(parseLockerTopic('lockers/L1/acks'), { lockerId: 'L1', name: 'acks' });
    assert.equal(parseLockerTopic('lockers/L1/other'), undefined);
  });
});

describe('MQTT message schemas', () => {
  const order = {
    orderId: 'o1',
    codes: { DOWN: '1234', UP: '5678', SUBTRACT: '9012' },
    notPaidAmount: 0,
    status: 'CREATED',
    cellSize: 'M',
  };

  it('accepts a sync message with 4-digit codes and rejects other codes', () => {
    assert.ok(
      SyncMessage.safeParse({ v: CONTRACT_VERSION, version: 1, full: true, upserts: [order], removals: [] }).success,
    );
    const bad = { ...order, codes: { ...order.codes, UP: '12345' } };
    assert.equal(
      SyncMessage.safeParse({ v: CONTRACT_VERSION, version: 1, full: true, upserts: [bad], removals: [] }).success,
      false,
    );
  });

  it('rejects a message of another contract version', () => {
    assert.equal(SyncMessage.safeParse({ v: '0.9', version: 1, full: true, upserts: [], removals: [] }).success, false);
  });

  it('accepts only known event types with a positive seq', () => {
    const ev = {
      v: CONTRACT_VERSION,
      eventId: 'e1',
      seq: 1,
      type: 'PLACED',
      orderId: 'o1',
      cellId: '3',
      at: new Date().toISOString(),
    };
    assert.ok(LockerEvent.safeParse(ev).success);
    assert.equal(LockerEvent.safeParse({ ...ev, type: 'EXPLODED' }).success, false);
    assert.equal(LockerEvent.safeParse({ ...ev, seq: 0 }).success, false);
  });

  it('requires a cellId on OPEN_CELL commands', () => {
    assert.ok(CommandMessage.safeParse({ v: CONTRACT_VERSION, commandId: 'c1', type: 'RESYNC' }).success);
    assert.equal(CommandMessage.safeParse({ v: CONTRACT_VERSION, commandId: 'c1', type: 'OPEN_CELL' }).success, false);
  });
});
