import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PARCEL_STATUSES, CARGO_STATUSES } from '../../cloud/domain/platform/enums.ts';
import {
  PARCEL_TRANSITIONS,
  CARGO_TRANSITIONS,
  assertCargoMove,
  assertParcelMove,
  canMoveCargo,
  canMoveParcel,
  canRedirect,
} from '../../cloud/domain/platform/statuses.ts';
import { cargoPlaceAfter, parcelPlaceAfter, type ParcelPlace } from '../../cloud/domain/platform/placement.ts';
import { marketStatus } from '../../cloud/domain/platform/market-status.ts';
import {
  allocateClientCode,
  codeNamesFor,
  normalizeCodeName,
  parseClientCode,
} from '../../cloud/domain/platform/client-codes.ts';
import { cargoSearchText, clientSearchText, parcelSearchText } from '../../cloud/domain/platform/search-text.ts';
import { newTrackCode } from '../../cloud/domain/platform/track-codes.ts';
import type { DomainError } from '../../cloud/domain/errors.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as DomainError).code;
  }
  return undefined;
};

describe('parcel status machine', () => {
  it('every status is reachable from AWAITING and only COMPLETED is final', () => {
    const seen = new Set<string>(['AWAITING']);
    const queue = ['AWAITING'] as Array<keyof typeof PARCEL_TRANSITIONS>;
    while (queue.length)
      for (const n of PARCEL_TRANSITIONS[queue.shift()!]) if (!seen.has(n)) seen.add(n), queue.push(n);
    assert.deepEqual([...seen].sort(), [...PARCEL_STATUSES].sort());
    assert.deepEqual(
      PARCEL_STATUSES.filter((s) => PARCEL_TRANSITIONS[s].length === 0),
      ['COMPLETED'],
    );
  });

  it('follows the operator flow AWAITING → RECEIVED → READYTOSHIP → SENT → ARRIVED → TRANSFERRED → COMPLETED', () => {
    const flow = ['AWAITING', 'RECEIVED', 'READYTOSHIP', 'SENT', 'ARRIVED', 'TRANSFERRED', 'COMPLETED'] as const;
    for (let i = 1; i < flow.length; i++) assert.ok(canMoveParcel(flow[i - 1], flow[i]), `${flow[i - 1]} → ${flow[i]}`);
  });

  it('refuses skipping ahead and leaving a final status, naming the allowed moves', () => {
    assert.equal(canMoveParcel('AWAITING', 'SENT'), false);
    assert.equal(canMoveParcel('SENT', 'TRANSFERRED'), false);
    assert.equal(canMoveParcel('COMPLETED', 'RECEIVED'), false);
    assert.throws(
      () => assertParcelMove('AWAITING', 'COMPLETED'),
      /cannot become COMPLETED \(it can become RECEIVED, ARRIVED, RECALL, LOST\)/,
    );
    assert.throws(() => assertParcelMove('COMPLETED', 'LOST'), /it is final/);
    assert.equal(
      code(() => assertParcelMove('SENT', 'COMPLETED')),
      'INVALID_TRANSITION',
    );
  });

  it('a lost parcel can be found again, at a warehouse', () => {
    assert.ok(canMoveParcel('LOST', 'RECEIVED'));
    assert.equal(canMoveParcel('LOST', 'ARRIVED'), false);
  });

  it('redirect is refused exactly in the spec statuses', () => {
    const refused = PARCEL_STATUSES.filter((s) => !canRedirect(s));
    assert.deepEqual(refused.sort(), ['COMPLETED', 'COURIER_RECEIVED', 'READYTOSHIP', 'SENT', 'TRANSFERRED']);
  });
});

describe('cargo status machine', () => {
  it('RECEIVED → READYTOSHIP → SENT → TRANSFERRED, lost from any open status, TRANSFERRED final', () => {
    assert.ok(
      canMoveCargo('RECEIVED', 'READYTOSHIP') &&
        canMoveCargo('READYTOSHIP', 'SENT') &&
        canMoveCargo('SENT', 'TRANSFERRED'),
    );
    for (const s of ['RECEIVED', 'READYTOSHIP', 'SENT'] as const) assert.ok(canMoveCargo(s, 'LOST'));
    assert.deepEqual(
      CARGO_STATUSES.filter((s) => CARGO_TRANSITIONS[s].length === 0),
      ['TRANSFERRED'],
    );
    assert.equal(
      code(() => assertCargoMove('RECEIVED', 'SENT')),
      'INVALID_TRANSITION',
    );
  });
});

const parcel = (over: Partial<ParcelPlace> = {}): ParcelPlace => ({
  status: 'AWAITING',
  deliveryMethod: 'PICKUP',
  originWarehouseId: null,
  currentWarehouseId: null,
  deliveryWarehouseId: 9,
  redirectedAt: null,
  ...over,
});
const at = new Date('2026-03-01T10:00:00Z');
const store = { id: 1, isPickupPoint: false };
const pvz = { id: 9, isPickupPoint: true };

describe('parcel placement after a status change', () => {
  it('RECEIVED needs a warehouse, sets it current, and the first one becomes the origin', () => {
    assert.equal(
      code(() => parcelPlaceAfter(parcel(), { to: 'RECEIVED', at })),
      'NOT_ACCEPTABLE',
    );
    const p = parcelPlaceAfter(parcel(), { to: 'RECEIVED', warehouse: store, at });
    assert.deepEqual(
      [p.currentWarehouseId, p.originWarehouseId, p.atPickupPoint, p.atFinalPoint],
      [1, 1, false, false],
    );
    const again = parcelPlaceAfter(
      { ...p, status: 'SENT', currentWarehouseId: null },
      { to: 'RECEIVED', warehouse: { id: 5, isPickupPoint: false }, at },
    );
    assert.equal(again.originWarehouseId, 1, 'the origin stays the first warehouse');
  });

  it('leaving statuses empty the current warehouse; READYTOSHIP keeps it', () => {
    const received = { ...parcel(), status: 'RECEIVED' as const, currentWarehouseId: 1, originWarehouseId: 1 };
    assert.equal(parcelPlaceAfter(received, { to: 'READYTOSHIP', current: store, at }).currentWarehouseId, 1);
    for (const to of ['SENT', 'COURIER_RECEIVED', 'TRANSFERRED', 'LOST'] as const) {
      assert.equal(parcelPlaceAfter(received, { to, current: store, at }).currentWarehouseId, null, to);
    }
  });

  it('RECEIVED at a pickup point is at the pickup point and at the final point', () => {
    const p = parcelPlaceAfter(parcel({ deliveryWarehouseId: null }), { to: 'RECEIVED', warehouse: pvz, at });
    assert.deepEqual([p.atPickupPoint, p.atFinalPoint], [true, true]);
  });

  it('arrival at its own delivery warehouse is the final point; elsewhere it is not', () => {
    const own = parcelPlaceAfter(parcel({ status: 'SENT', deliveryWarehouseId: 4, deliveryMethod: 'WAREHOUSE' }), {
      to: 'ARRIVED',
      warehouse: { id: 4, isPickupPoint: false },
      at,
    });
    assert.deepEqual([own.atPickupPoint, own.atFinalPoint], [false, true]);
    const transit = parcelPlaceAfter(parcel({ status: 'SENT', deliveryWarehouseId: 4, deliveryMethod: 'WAREHOUSE' }), {
      to: 'ARRIVED',
      warehouse: store,
      at,
    });
    assert.equal(transit.atFinalPoint, false);
  });

  it('ARRIVED without a warehouse means in the locker or at the door, and only for those methods', () => {
    assert.equal(
      parcelPlaceAfter(parcel({ status: 'SENT', deliveryMethod: 'POSTOMAT' }), { to: 'ARRIVED', at }).atFinalPoint,
      true,
    );
    assert.equal(
      parcelPlaceAfter(parcel({ status: 'COURIER_RECEIVED', deliveryMethod: 'COURIER' }), { to: 'ARRIVED', at })
        .atFinalPoint,
      true,
    );
    assert.equal(
      code(() => parcelPlaceAfter(parcel({ status: 'SENT', deliveryMethod: 'PICKUP' }), { to: 'ARRIVED', at })),
      'NOT_ACCEPTABLE',
    );
  });

  it('REDIRECT_TO_PVZ needs a pickup point, makes it the delivery point and marks the redirect until arrival there', () => {
    const arrived = parcel({
      status: 'ARRIVED',
      currentWarehouseId: 1,
      deliveryWarehouseId: 1,
      deliveryMethod: 'WAREHOUSE',
    });
    assert.equal(
      code(() => parcelPlaceAfter(arrived, { to: 'REDIRECT_TO_PVZ', destination: store, current: store, at })),
      'NOT_ACCEPTABLE',
    );
    const r = parcelPlaceAfter(arrived, { to: 'REDIRECT_TO_PVZ', destination: pvz, current: store, at });
    assert.deepEqual(
      [r.deliveryWarehouseId, r.deliveryMethod, r.redirectedAt, r.atFinalPoint],
      [9, 'PICKUP', at.toISOString(), false],
    );
    const sent = parcelPlaceAfter({ ...r }, { to: 'SENT', current: store, at });
    assert.equal(sent.redirectedAt, at.toISOString(), 'still on its way to the new point');
    const there = parcelPlaceAfter({ ...sent }, { to: 'ARRIVED', warehouse: pvz, at });
    assert.deepEqual([there.atFinalPoint, there.redirectedAt], [true, null]);
  });
});

describe('cargo placement', () => {
  it('is at its final point when RECEIVED at its delivery warehouse or a pickup point', () => {
    const base = {
      status: 'RECEIVED' as const,
      originWarehouseId: null,
      currentWarehouseId: null,
      deliveryWarehouseId: 4,
    };
    assert.equal(
      cargoPlaceAfter(base, { to: 'RECEIVED', warehouse: { id: 4, isPickupPoint: false }, at }).atFinalPoint,
      true,
    );
    assert.equal(cargoPlaceAfter(base, { to: 'RECEIVED', warehouse: pvz, at }).atFinalPoint, true);
    const elsewhere = cargoPlaceAfter(base, { to: 'RECEIVED', warehouse: store, at });
    assert.deepEqual([elsewhere.atFinalPoint, elsewhere.originWarehouseId], [false, 1]);
    assert.equal(cargoPlaceAfter({ ...elsewhere }, { to: 'SENT', current: store, at }).currentWarehouseId, null);
    assert.equal(
      code(() => cargoPlaceAfter(base, { to: 'RECEIVED', at })),
      'NOT_ACCEPTABLE',
    );
  });
});

describe('marketplace status mapping', () => {
  const f = (status: (typeof PARCEL_STATUSES)[number], over: Partial<Parameters<typeof marketStatus>[0]> = {}) =>
    marketStatus({ status, atPickupPoint: false, redirectedAt: null, ...over });
  it('CREATED until it arrives', () => {
    for (const s of ['AWAITING', 'RECEIVED', 'READYTOSHIP', 'SENT', 'COURIER_RECEIVED', 'RECALL', 'LOST'] as const)
      assert.equal(f(s), 'CREATED', s);
  });
  it('ARRIVED when arrived, received at a pickup point, or placed in the locker', () => {
    assert.equal(f('ARRIVED'), 'ARRIVED');
    assert.equal(f('RECEIVED', { atPickupPoint: true }), 'ARRIVED');
    assert.equal(f('AWAITING', { lockerOrderStatus: 'DELIVERED' }), 'ARRIVED');
    assert.equal(f('AWAITING', { lockerOrderStatus: 'CREATED' }), 'CREATED');
  });
  it('TRANSFERRED_TO_CLIENT when handed over by staff or collected from the locker', () => {
    assert.equal(f('TRANSFERRED'), 'TRANSFERRED_TO_CLIENT');
    assert.equal(f('COMPLETED'), 'TRANSFERRED_TO_CLIENT');
    assert.equal(f('AWAITING', { lockerOrderStatus: 'COMPLETED' }), 'TRANSFERRED_TO_CLIENT');
  });
  it('REDIRECTED while a redirect is under way, even when it sits ARRIVED at its old point', () => {
    assert.equal(f('REDIRECT_TO_PVZ'), 'REDIRECTED');
    assert.equal(f('ARRIVED', { redirectedAt: '2026-03-01T10:00:00.000Z' }), 'REDIRECTED');
    assert.equal(
      f('AWAITING', { redirectedAt: '2026-03-01T10:00:00.000Z', lockerOrderStatus: 'DELIVERED' }),
      'ARRIVED',
    );
  });
});

describe('client codes', () => {
  it('count up from 1; a requested code is used and later codes continue above it', () => {
    assert.deepEqual(allocateClientCode(0), { code: 1, last: 1 });
    assert.deepEqual(allocateClientCode(7, 500), { code: 500, last: 500 });
    assert.deepEqual(allocateClientCode(500, 3), { code: 3, last: 500 });
    assert.equal(
      code(() => allocateClientCode(0, 0)),
      'NOT_ACCEPTABLE',
    );
  });
  it('code names are Latin letters, upper-cased; full codes parse case-insensitively', () => {
    assert.equal(normalizeCodeName(' abc '), 'ABC');
    assert.equal(
      code(() => normalizeCodeName('AB1')),
      'NOT_ACCEPTABLE',
    );
    assert.equal(
      code(() => normalizeCodeName('АБВ')),
      'NOT_ACCEPTABLE',
      'Cyrillic is not Latin',
    );
    assert.deepEqual(parseClientCode('abc-42'), { codeName: 'ABC', code: 42 });
    assert.equal(parseClientCode('-42'), undefined);
    assert.equal(parseClientCode('ABC-0'), undefined);
    assert.equal(parseClientCode('AB C-1'), undefined);
  });
  it('a parcel is known by the code names of its cargo type, else by all the company has', () => {
    const codes = [
      { title: 'ABC', cargoTypeId: 1 },
      { title: 'ABCA', cargoTypeId: 2 },
    ];
    assert.deepEqual(codeNamesFor(codes, 2), ['ABCA']);
    assert.deepEqual(codeNamesFor(codes, 3), ['ABC', 'ABCA']);
    assert.deepEqual(codeNamesFor(codes, null), ['ABC', 'ABCA']);
  });
});

describe('search text', () => {
  it("parcels: track code, description, code name, lower-cased; the client's name and phone are the client's text", () => {
    const t = parcelSearchText({ trackCode: 'PL12AB', description: 'Red Shoes' }, ['ABC']);
    assert.equal(t, 'pl12ab\nred shoes\nabc');
    assert.equal(
      clientSearchText({ name: ' Айбек Sadykov ', phone: '+996555000111' }),
      'айбек sadykov\n+996555000111',
      'Cyrillic lower-cased too',
    );
    assert.equal(clientSearchText({ name: null, phone: '+996555000111' }), '+996555000111');
  });
  it('cargo: description, code name, company title, tractor number (no track code)', () => {
    const t = cargoSearchText({ description: null, tractorNumber: '01KG123ABC' }, ['XYZ'], 'Silk Road Cargo');
    assert.equal(t, 'xyz\nsilk road cargo\n01kg123abc');
    assert.ok(!cargoSearchText({ description: 'Tiles', tractorNumber: null }, [], 'C').includes('\n\n'));
  });
});

describe('track codes', () => {
  it('PL and ten characters without look-alikes', () => {
    for (let i = 0; i < 50; i++) assert.match(newTrackCode(), /^PL[2-9A-HJKMNP-Z]{10}$/);
    assert.equal(
      newTrackCode(() => 0),
      'PL2222222222',
    );
  });
});

describe('webhook template rules', async () => {
  const { checkTemplate, normalizeWebhook, DEFAULT_TEMPLATE } = await import(
    '../../cloud/domain/platform/webhook-template.ts'
  );
  it('accepts the default and templates with extra constant fields', () => {
    checkTemplate(DEFAULT_TEMPLATE);
    checkTemplate('{"order":{"id":"{{postomatOrderId}}"},"s":{{status}},"v":2}');
    checkTemplate('{}');
  });
  it('refuses unknown placeholders and text that is not JSON after substitution', () => {
    for (const t of [
      '{"a":"{{postomatOrderID}}"}',
      '{"a":{{postomatOrderId}}}',
      '{"s":{{status}}',
      '{"x":"{{ status }}"}',
    ]) {
      assert.equal(
        code(() => checkTemplate(t)),
        'WEBHOOK_PAYLOAD_INVALID',
        t,
      );
    }
  });
  it('drops the subtype where the type has none and defaults the template of the locker subtypes', () => {
    assert.deepEqual(normalizeWebhook({ type: 'CAR', subtype: 'ITEM_CREATED', payloadTemplate: null }), {
      type: 'CAR',
      subtype: null,
      payloadTemplate: null,
    });
    assert.deepEqual(
      normalizeWebhook({ type: 'PARCEL', subtype: 'TRANSFERRED_TO_CLIENT', payloadTemplate: null }).payloadTemplate,
      DEFAULT_TEMPLATE,
    );
    assert.equal(
      normalizeWebhook({ type: 'CARGO', subtype: 'ITEM_CREATED', payloadTemplate: null }).payloadTemplate,
      null,
    );
  });
});
