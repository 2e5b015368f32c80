/**
 * The rules behind "no event retried silently for ever" and the cell-map alarm, directly:
 * which failures are the database being away (retried, not counted), when an event is set
 * aside, which outcomes alarm the operator, what a pickup after a refused placement gets, and
 * how two cell maps are compared.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alarmsOperator, decideLockerEvent, giveUpAfter } from '../../cloud/domain/locker-sync.ts';
import { isTransientDbError } from '../../cloud/storage/sql-errors.ts';
import { compareCellMaps, describeDifference } from '../../cloud/sync/cell-map.ts';
import { actsNow, chooseByCode } from '../../shared/locker-codes.ts';

describe('isTransientDbError: the database cannot answer now', () => {
  it('a busy or locked SQLite, a full disk, PostgreSQL restarting or out of connections, a serialization failure, a lost connection', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_LOCKED',
      'SQLITE_IOERR_WRITE',
      'SQLITE_FULL',
      '57P01',
      '57P03',
      '53300',
      '08006',
      '40001',
      '40P01',
      'ECONNREFUSED',
      'ECONNRESET',
    ]) {
      assert.equal(isTransientDbError(Object.assign(new Error('x'), { code })), true, code);
    }
    assert.equal(isTransientDbError(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isTransientDbError(new TypeError('The database connection is not open')), true);
  });
  it('not a fault of the statement, the data or the code', () => {
    for (const code of ['SQLITE_CONSTRAINT_TRIGGER', 'SQLITE_ERROR', 'P0001', '22003', '23505', '42P01']) {
      assert.equal(isTransientDbError(Object.assign(new Error('x'), { code })), false, code);
    }
    assert.equal(isTransientDbError(new RangeError('Invalid time value')), false);
    assert.equal(isTransientDbError(undefined), false);
  });
});

describe('giveUpAfter and alarmsOperator', () => {
  it('sets an event aside once its attempts reach the limit', () => {
    assert.equal(giveUpAfter(4, 5), false);
    assert.equal(giveUpAfter(5, 5), true);
  });
  it('alarms order events the cloud would not or could not apply, never stored or applied ones', () => {
    assert.equal(alarmsOperator('PLACED', 'REJECTED'), true);
    assert.equal(alarmsOperator('PICKED_UP', 'FAILED'), true);
    assert.equal(alarmsOperator('PLACED', 'APPLIED'), false);
    assert.equal(alarmsOperator('CODE_REJECTED', 'STORED'), false);
    assert.equal(alarmsOperator('CELL_FAULT', 'FAILED'), false, 'about no order: nothing stranded');
  });
});

describe('decideLockerEvent: a pickup of an order whose placement was refused', () => {
  const facts = {
    type: 'PICKED_UP',
    orderId: 'o1',
    cellKnown: false,
    order: { postomatId: 'L1', status: 'CREATED' },
    lockerId: 'L1',
  };
  it('waits while the placement may still come', () => assert.equal(decideLockerEvent(facts).action, 'wait'));
  it('is refused at once when it cannot come any more', () => {
    const d = decideLockerEvent({ ...facts, placementRefused: true });
    assert.equal(d.action, 'reject');
    assert.match((d as { reason: string }).reason, /placement was not applied/);
  });
});

describe('the keypad rule shared by cloud and agent', () => {
  it('a code acts only at its step', () => {
    assert.equal(actsNow('DOWN', 'CREATED'), true);
    assert.equal(actsNow('DOWN', 'DELIVERED'), false);
    assert.equal(actsNow('UP', 'DELIVERED'), true);
    assert.equal(actsNow('SUBTRACT', 'CREATED'), false);
  });
  it('the placement wins over a pickup, in whatever order the matches come', () => {
    const up = { kind: 'UP' as const, order: { status: 'DELIVERED' as const }, id: 'b' };
    const down = { kind: 'DOWN' as const, order: { status: 'CREATED' as const }, id: 'a' };
    assert.equal(chooseByCode([up, down])?.id, 'a');
    assert.equal(chooseByCode([down, up])?.id, 'a');
    assert.equal(
      chooseByCode([up, { ...down, order: { status: 'DELIVERED' as const } }])?.id,
      'b',
      'a used DOWN code is no match',
    );
    assert.equal(
      chooseByCode([{ ...up, order: { status: 'CREATED' as const } }]),
      undefined,
      'an UP code before placement opens nothing',
    );
  });
});

describe('compareCellMaps', () => {
  it("nothing when the agent has exactly the cloud's cells", () =>
    assert.equal(compareCellMaps(['2', '1'], ['1', '2']), undefined));
  it('names the cells on each side, in number order', () => {
    const d = compareCellMaps(['1', '9', '10'], ['1', '2', '3'])!;
    assert.deepEqual(d, { unknownToCloud: ['9', '10'], missingAtLocker: ['2', '3'] });
    assert.equal(
      describeDifference(d),
      'the agent has cells the cloud does not know (never used for parcels): 9, 10; cells of the cloud the agent does not have: 2, 3',
    );
  });
});
