import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CargoStatus, ParcelStatus } from '../../cloud/domain/platform/enums.ts';
import {
  CARGO_ON_THE_WAY,
  PARCEL_ON_THE_WAY,
  cargoStatusSelection,
  parcelStatusSelection,
  selects,
  type ItemFacts,
} from '../../cloud/domain/platform/list-filters.ts';
import { TRIGRAM_MIN, clientCodesFilter, parseListSearch } from '../../cloud/domain/platform/list-search.ts';
import { clientReadScope, clientSearchScope, parseCodeSearch } from '../../cloud/domain/platform/client-search.ts';

const item = <S extends string>(
  status: S,
  atPickupPoint: boolean,
  atFinalPoint: boolean,
  hasPaymentOrder: boolean,
): ItemFacts<S> => ({ status, atPickupPoint, atFinalPoint, hasPaymentOrder });

/** Parcels that tell the special sets apart: each row of the spec's table selects a different group of them. */
const PARCELS: Record<string, ItemFacts<ParcelStatus>> = {
  receivedOnTheWay: item('RECEIVED', false, false, true),
  receivedAtDelivery: item('RECEIVED', false, true, true), // final, but not ARRIVED in any sense
  receivedAtPvzPaid: item('RECEIVED', true, true, true), // counts as ARRIVED
  receivedAtPvzNoOrder: item('RECEIVED', true, true, false),
  arrivedOnTheWay: item('ARRIVED', false, false, true),
  arrivedFinalWithOrder: item('ARRIVED', false, true, true),
  arrivedFinalNoOrder: item('ARRIVED', false, true, false),
  sent: item('SENT', false, false, true),
  readyToShip: item('READYTOSHIP', false, false, false),
  recall: item('RECALL', false, false, false),
  redirected: item('REDIRECT_TO_PVZ', false, false, true),
  awaiting: item('AWAITING', false, false, false),
  completed: item('COMPLETED', false, false, true),
};

const chosen = (sel: ReturnType<typeof parcelStatusSelection>) =>
  Object.keys(PARCELS)
    .filter((n) => sel && selects(sel, PARCELS[n]))
    .sort();

describe('parcel status filter', () => {
  it('no statuses: no filter, whatever the flags', () => {
    assert.equal(parcelStatusSelection(undefined, true, true), undefined);
    assert.equal(parcelStatusSelection([], false), undefined);
  });

  it('selects by current status', () => {
    assert.deepEqual(chosen(parcelStatusSelection(['SENT', 'COMPLETED'])), ['completed', 'sent']);
  });

  it('RECEIVED: only away from pickup points; ARRIVED: arrived, or received at a pickup point', () => {
    assert.deepEqual(chosen(parcelStatusSelection(['RECEIVED'])), ['receivedAtDelivery', 'receivedOnTheWay']);
    assert.deepEqual(chosen(parcelStatusSelection(['ARRIVED'])), [
      'arrivedFinalNoOrder',
      'arrivedFinalWithOrder',
      'arrivedOnTheWay',
      'receivedAtPvzNoOrder',
      'receivedAtPvzPaid',
    ]);
  });
});

describe('parcel special sets', () => {
  const A = [
    'arrivedFinalNoOrder',
    'arrivedFinalWithOrder',
    'receivedAtDelivery',
    'receivedAtPvzNoOrder',
    'receivedAtPvzPaid',
  ];
  const B = ['arrivedOnTheWay', 'readyToShip', 'recall', 'receivedOnTheWay', 'redirected', 'sent'];
  const C = ['arrivedFinalWithOrder', 'receivedAtPvzPaid'];
  const D = [
    'arrivedFinalNoOrder',
    'arrivedOnTheWay',
    'readyToShip',
    'recall',
    'receivedAtDelivery',
    'receivedAtPvzNoOrder',
    'receivedOnTheWay',
    'redirected',
    'sent',
  ];

  it('row 1: ARRIVED, RECEIVED + arrivedAtFinal → at the final point', () => {
    assert.deepEqual(chosen(parcelStatusSelection(['ARRIVED', 'RECEIVED'], true)), A);
    assert.deepEqual(chosen(parcelStatusSelection(['RECEIVED', 'ARRIVED', 'ARRIVED'], true)), A);
  });

  it('row 2: the six + arrivedAtFinal=false → those statuses, not at the final point', () => {
    assert.deepEqual(chosen(parcelStatusSelection([...PARCEL_ON_THE_WAY].reverse(), false)), B);
  });

  it('row 3: ARRIVED + arrivedAtFinal + strictArrived → arrived at the final point with a payment order', () => {
    assert.deepEqual(chosen(parcelStatusSelection(['ARRIVED'], true, true)), C);
  });

  it('row 4: the six + arrivedAtFinal=false + strictArrived → those statuses except row 3', () => {
    assert.deepEqual(chosen(parcelStatusSelection(PARCEL_ON_THE_WAY, false, true)), D);
  });

  it('the rows are told apart: 1 and 2 split the six statuses, 3 is inside 1, 3 and 4 split the six', () => {
    const six = chosen(parcelStatusSelection(PARCEL_ON_THE_WAY));
    assert.deepEqual([...A, ...B].sort(), six);
    assert.ok(C.every((n) => A.includes(n)) && C.length < A.length);
    assert.deepEqual([...C, ...D].sort(), six);
    assert.ok(
      D.includes('receivedAtDelivery') && !B.includes('receivedAtDelivery'),
      'final, not arrived: in row 4, not in row 2',
    );
  });

  it('any other combination: the flags change nothing', () => {
    const same = (statuses: ParcelStatus[], a?: boolean, s?: boolean) =>
      assert.deepEqual(parcelStatusSelection(statuses, a, s), parcelStatusSelection(statuses), `${statuses} ${a} ${s}`);
    same(['ARRIVED', 'RECEIVED'], false);
    same(['ARRIVED', 'RECEIVED'], true, true);
    same(['ARRIVED', 'RECEIVED'], true, false);
    same(['ARRIVED'], true);
    same(['ARRIVED'], true, false);
    same(['ARRIVED'], false, true);
    same(['RECEIVED'], true);
    same([...PARCEL_ON_THE_WAY], true);
    same([...PARCEL_ON_THE_WAY, 'LOST'], false);
    same(PARCEL_ON_THE_WAY.slice(1), false, true);
    same([...PARCEL_ON_THE_WAY], undefined, true);
  });
});

describe('cargo status filter and special sets', () => {
  const CARGO: Record<string, ItemFacts<CargoStatus>> = {
    atOrigin: item('RECEIVED', false, false, true),
    atDelivery: item('RECEIVED', false, true, false),
    atPickupPoint: item('RECEIVED', true, true, true),
    packed: item('READYTOSHIP', false, false, false),
    onTheRoad: item('SENT', false, false, true),
    handedOver: item('TRANSFERRED', false, false, true),
  };
  const pick = (sel: ReturnType<typeof cargoStatusSelection>) =>
    Object.keys(CARGO)
      .filter((n) => sel && selects(sel, CARGO[n]))
      .sort();

  it('statuses as given: no pickup-point rule for cargo', () => {
    assert.deepEqual(pick(cargoStatusSelection(['RECEIVED'])), ['atDelivery', 'atOrigin', 'atPickupPoint']);
  });

  it('RECEIVED + arrivedAtFinal: at the delivery warehouse or a pickup point', () => {
    assert.deepEqual(pick(cargoStatusSelection(['RECEIVED'], true)), ['atDelivery', 'atPickupPoint']);
  });

  it('READYTOSHIP, RECEIVED, SENT + arrivedAtFinal=false: those statuses except the previous row', () => {
    assert.deepEqual(pick(cargoStatusSelection(['SENT', 'READYTOSHIP', 'RECEIVED'], false)), [
      'atOrigin',
      'onTheRoad',
      'packed',
    ]);
    assert.deepEqual(pick(cargoStatusSelection(CARGO_ON_THE_WAY)), [
      'atDelivery',
      'atOrigin',
      'atPickupPoint',
      'onTheRoad',
      'packed',
    ]);
  });

  it('any other combination: no effect', () => {
    assert.deepEqual(cargoStatusSelection(['RECEIVED'], false), cargoStatusSelection(['RECEIVED']));
    assert.deepEqual(cargoStatusSelection([...CARGO_ON_THE_WAY], true), cargoStatusSelection([...CARGO_ON_THE_WAY]));
    assert.deepEqual(cargoStatusSelection(['RECEIVED', 'SENT'], false), cargoStatusSelection(['RECEIVED', 'SENT']));
  });
});

describe('list search rules', () => {
  it('rule 1: <code name>-<client code>, any case, trimmed', () => {
    assert.deepEqual(parseListSearch(' srl-42 '), { kind: 'client', codeName: 'SRL', code: 42 });
  });

  it('rule 2: anything else, lower-cased; a whole number is also a client code', () => {
    assert.deepEqual(parseListSearch('Red Sneakers'), { kind: 'text', text: 'red sneakers', indexed: true });
    assert.deepEqual(parseListSearch('0042'), { kind: 'text', text: '0042', code: 42, indexed: true });
    assert.deepEqual(parseListSearch('SRL-0'), { kind: 'text', text: 'srl-0', indexed: true });
    assert.deepEqual(
      parseListSearch('+996555'),
      { kind: 'text', text: '+996555', indexed: true },
      'not a whole number',
    );
    assert.equal((parseListSearch('1234567890') as any).code, undefined, 'longer than any client code');
  });

  it('only searches of at least three characters can use the trigram index', () => {
    assert.equal(TRIGRAM_MIN, 3);
    assert.deepEqual(parseListSearch('7'), { kind: 'text', text: '7', code: 7, indexed: false });
    assert.equal((parseListSearch('ёж') as any).indexed, false, 'two characters, four bytes');
    assert.equal((parseListSearch('中国人') as any).indexed, true);
  });

  it('an empty search is no search', () => {
    assert.equal(parseListSearch(undefined), undefined);
    assert.equal(parseListSearch('   '), undefined);
  });

  it('rule 3: form 1 with code/codes', () => {
    const one = parseListSearch('SRL-5');
    assert.deepEqual(clientCodesFilter(one), [5]);
    assert.deepEqual(clientCodesFilter(one, undefined, [3, 5]), [5]);
    assert.equal(clientCodesFilter(one, undefined, [3]), null);
    assert.deepEqual(clientCodesFilter(one, 5), [5]);
    assert.equal(clientCodesFilter(one, 4), null);
    assert.deepEqual(clientCodesFilter(one, 4, [5]), [5], 'codes wins');
  });

  it('without form 1: codes, else code, else no limit', () => {
    assert.equal(clientCodesFilter(undefined), undefined);
    assert.deepEqual(clientCodesFilter(parseListSearch('kettle'), 3), [3]);
    assert.deepEqual(clientCodesFilter(undefined, 3, [1, 2, 2]), [1, 2]);
  });
});

describe('client search-by-code forms', () => {
  it('the five forms, uppercased and trimmed', () => {
    assert.deepEqual(parseCodeSearch(' srl-12 '), { form: 'full', codeName: 'SRL', code: 12 });
    assert.deepEqual(parseCodeSearch('-12'), { form: 'code', code: 12 });
    assert.deepEqual(parseCodeSearch('12'), { form: 'code', code: 12 });
    assert.deepEqual(parseCodeSearch('srl'), { form: 'codeName', codeName: 'SRL' });
    for (const s of ['', 'SRL-', 'S1', '--1', '+1', 'SRL 1', 'ÖL', '1234567890'])
      assert.deepEqual(parseCodeSearch(s), { form: 'none' }, s);
  });

  it('who searches whom', () => {
    assert.deepEqual(clientSearchScope('LOGIST'), { own: true, partners: false });
    assert.deepEqual(clientSearchScope('WAREHOUSE'), { own: false, partners: true });
    for (const t of ['MARKETPLACE', 'COURIER']) assert.deepEqual(clientSearchScope(t), { own: false, partners: false });
    assert.deepEqual(clientReadScope('WAREHOUSE'), { own: true, partners: true });
    assert.deepEqual(clientReadScope('MARKETPLACE'), { own: true, partners: false });
  });
});
