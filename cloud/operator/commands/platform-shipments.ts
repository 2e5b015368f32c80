/**
 * Warehouses and pickup points, and the warehouse staff's work on parcels, cargo and payment
 * orders. Status changes follow the transitions of docs/platform.md; `--user` records (and
 * checks) the staff member making the change.
 */
import type { z } from 'zod';
import type { Db } from '../../storage/database.ts';
import { defineCommand, MissingRecord, OperatorError, type Command } from '../command.ts';
import { fBool, fLat, fLng, fNum, fPrice, fText, flagsOf } from '../flags.ts';
import { fChoice, fCurrency, fId, fIdList, fJsonArray } from '../platform-flags.ts';
import { block, money, table, yesNo } from '../format.ts';
import { withBooleans, withMajor } from '../present.ts';
import { CARGO_STATUSES, DELIVERY_METHODS, PARCEL_STATUSES } from '../../domain/platform/enums.ts';
import { CARGO_TRANSITIONS, PARCEL_TRANSITIONS } from '../../domain/platform/statuses.ts';
import { createWarehouse, listWarehouses, updateWarehouse } from '../../services/platform/warehouses.ts';
import {
  changeParcelStatus,
  createParcel,
  findParcelByTrackCode,
  getParcel,
  parcelHistory,
} from '../../services/platform/parcels.ts';
import { cargoHistory, changeCargoStatus, createCargo, getCargo } from '../../services/platform/cargo.ts';
import { createPaymentOrder, markPaymentOrderPaid } from '../../services/platform/payment-orders.ts';

const warehouseFlags = {
  'title-cn': fText().optional(),
  'title-en': fText().optional(),
  'title-ky': fText().optional(),
  address: fText().optional(),
  lat: fLat().optional(),
  lng: fLng().optional(),
  schedule: fText().optional(),
  schedules: fJsonArray().optional(),
  country: fId().optional(),
  city: fId().optional(),
  'pickup-point': fBool().optional(),
  active: fBool().optional(),
};
type WarehouseFlags = z.output<z.ZodObject<typeof warehouseFlags>> & { title?: string };
const warehouseFields = (f: WarehouseFlags) => ({
  title: f.title,
  titleCN: f['title-cn'],
  titleEN: f['title-en'],
  titleKY: f['title-ky'],
  address: f.address,
  lat: f.lat,
  lng: f.lng,
  schedule: f.schedule,
  schedules: f.schedules,
  countryId: f.country,
  cityId: f.city,
  isPickupPoint: f['pickup-point'],
  isActive: f.active,
});
const WAREHOUSE_USAGE = [
  '--title-cn, --title-en, --title-ky, --address <text>',
  '--lat <n> --lng <n>   together',
  '--schedule <text>  --schedules <JSON array>',
  '--country <id>, --city <id>',
  '--pickup-point true|false   a marketplace pickup point',
  '--active true|false',
];
const warehouseResult = (w: Awaited<ReturnType<typeof createWarehouse>>, headline: string) => ({
  json: withBooleans({ ...w, schedules: w.schedules ? JSON.parse(w.schedules) : null }),
  text: `${headline}\n${block({ id: w.id, company: w.companyId, title: w.title, city: w.cityId, pickupPoint: yesNo(w.isPickupPoint), active: yesNo(w.isActive), coordinates: w.lat === null ? null : `${w.lat},${w.lng}` })}`,
});

const PARCEL_MONEY = ['price'] as const;
const placementFlags = (x: { atPickupPoint: number; atFinalPoint: number }) => ({
  atPickupPoint: x.atPickupPoint === 1,
  atFinalPoint: x.atFinalPoint === 1,
});

async function parcelResult(db: Db, id: number, headline?: string) {
  const p = await getParcel(db, id);
  const history = await parcelHistory(db, id);
  return {
    json: { ...withMajor(withBooleans(p), PARCEL_MONEY), ...placementFlags(p), statuses: history },
    text: [
      ...(headline ? [headline] : []),
      block({
        id: p.id,
        trackCode: p.trackCode,
        status: p.status,
        next: PARCEL_TRANSITIONS[p.status].join(', ') || 'none (final)',
        company: p.companyId,
        client: p.clientId === null ? null : `${p.clientId} (code ${p.clientCode})`,
        price: `${money(p.price)} ${p.currency}`,
        delivery:
          [
            p.deliveryMethod,
            p.deliveryWarehouseId && `warehouse ${p.deliveryWarehouseId}`,
            p.postomatId && `locker ${p.postomatId}`,
          ]
            .filter(Boolean)
            .join(', ') || null,
        currentWarehouse: p.currentWarehouseId,
        paid: p.isPaid === null ? 'no payment order' : yesNo(p.isPaid),
        history: history.map((h) => `${h.status}${h.warehouseId ? `@${h.warehouseId}` : ''} ${h.createdAt}`).join(', '),
      }),
    ].join('\n'),
  };
}

async function cargoResult(db: Db, id: number, headline?: string) {
  const c = await getCargo(db, id);
  const history = await cargoHistory(db, id);
  return {
    json: { ...withMajor(withBooleans(c), PARCEL_MONEY), ...placementFlags(c), statuses: history },
    text: [
      ...(headline ? [headline] : []),
      block({
        id: c.id,
        status: c.status,
        next: CARGO_TRANSITIONS[c.status].join(', ') || 'none (final)',
        company: c.companyId,
        tractorNumber: c.tractorNumber,
        client: c.clientId === null ? null : `${c.clientId} (code ${c.clientCode})`,
        price: `${money(c.price)} ${c.currency}`,
        currentWarehouse: c.currentWarehouseId,
        paid: c.isPaid === null ? 'no payment order' : yesNo(c.isPaid),
        history: history.map((h) => `${h.status}${h.warehouseId ? `@${h.warehouseId}` : ''} ${h.createdAt}`).join(', '),
      }),
    ].join('\n'),
  };
}

const shipmentFlags = {
  weight: fNum(0),
  currency: fCurrency(),
  price: fPrice().optional(),
  description: fText().optional(),
  client: fId().optional(),
  supplier: fId().optional(),
  'cargo-type': fId().optional(),
  'delivery-warehouse': fId().optional(),
  'receipt-city': fId().optional(),
  'delivery-city': fId().optional(),
  user: fId().optional(),
};
const SHIPMENT_USAGE = [
  '--company <id>      the logistics company (required)',
  '--weight <kg>  --currency <ISO 4217>  (required)   --price <amount> (major units, default 0)',
  '--description <text>  --client <id>  --supplier <id>  --cargo-type <id>',
  '--delivery-warehouse <id>  --receipt-city <id>  --delivery-city <id>',
  '--user <id>         the staff member registering it',
];
const statusFlags = { id: fId(), warehouse: fId().optional(), destination: fId().optional(), user: fId().optional() };

export const commands: Command[] = [
  defineCommand({
    name: 'warehouse create',
    summary: 'create a warehouse of a company (with --pickup-point: a marketplace pickup point)',
    usage: ['--company <id>  --title <text>  (required)', ...WAREHOUSE_USAGE],
    flags: flagsOf({ ...warehouseFlags, company: fId(), title: fText() }),
    async run(ctx, f) {
      return warehouseResult(
        await createWarehouse(ctx.db, { companyId: f.company, ...warehouseFields(f), title: f.title }, ctx.clock.now()),
        'created warehouse',
      );
    },
  }),
  defineCommand({
    name: 'warehouse list',
    summary: 'list warehouses',
    usage: ['--company <id>', '--pickup-points true|false'],
    flags: flagsOf({ company: fId().optional(), 'pickup-points': fBool().optional() }),
    async run(ctx, f) {
      const rows = await listWarehouses(ctx.db, { companyId: f.company, pickupPoints: f['pickup-points'] });
      return {
        json: rows.map((w) => withBooleans({ ...w, schedules: w.schedules ? JSON.parse(w.schedules) : null })),
        text: table(
          rows.map((w) => ({ ...w, pickupPoint: yesNo(w.isPickupPoint), active: yesNo(w.isActive) })),
          ['id', 'companyId', 'title', 'cityId', 'pickupPoint', 'active'],
        ),
      };
    },
  }),
  defineCommand({
    name: 'warehouse update',
    summary: 'change a warehouse (parcels inside are re-filed when it becomes or stops being a pickup point)',
    usage: ['--id <id>', '--title <text>', ...WAREHOUSE_USAGE],
    flags: flagsOf({ ...warehouseFlags, id: fId(), title: fText().optional() }),
    async run(ctx, f) {
      return warehouseResult(
        await updateWarehouse(ctx.db, f.id, warehouseFields(f), ctx.clock.now()),
        'updated warehouse',
      );
    },
  }),
  defineCommand({
    name: 'parcel create',
    summary: 'register a parcel (AWAITING)',
    usage: [
      ...SHIPMENT_USAGE,
      '--track-code <text>  unique; generated when absent',
      `--delivery-method ${DELIVERY_METHODS.join('|')}`,
      '--origin <warehouse id>  --partner <marketplace company id>',
    ],
    flags: flagsOf({
      ...shipmentFlags,
      company: fId(),
      'track-code': fText().optional(),
      'delivery-method': fChoice(DELIVERY_METHODS).optional(),
      origin: fId().optional(),
      partner: fId().optional(),
    }),
    async run(ctx, f) {
      const p = await createParcel(
        ctx.db,
        {
          companyId: f.company,
          trackCode: f['track-code'],
          weight: f.weight,
          currency: f.currency,
          price: f.price,
          description: f.description,
          clientId: f.client,
          supplierId: f.supplier,
          cargoTypeId: f['cargo-type'],
          deliveryMethod: f['delivery-method'],
          originWarehouseId: f.origin,
          deliveryWarehouseId: f['delivery-warehouse'],
          receiptCityId: f['receipt-city'],
          deliveryCityId: f['delivery-city'],
          partnerCompanyId: f.partner,
          userId: f.user,
        },
        ctx.clock.now(),
      );
      return parcelResult(ctx.db, p.id, 'registered parcel');
    },
  }),
  defineCommand({
    name: 'parcel show',
    summary: 'show a parcel with its status history and the statuses it can move to',
    usage: ['--id <id>  or  --track-code <text>'],
    flags: flagsOf({ id: fId().optional(), 'track-code': fText().optional() }),
    async run(ctx, f) {
      if ((f.id === undefined) === (f['track-code'] === undefined))
        throw new OperatorError('give --id or --track-code');
      const id = f.id ?? (await findParcelByTrackCode(ctx.db, f['track-code']!))?.id;
      if (id === undefined) throw new MissingRecord(`no parcel with track code ${f['track-code']}`);
      return parcelResult(ctx.db, id);
    },
  }),
  defineCommand({
    name: 'parcel status',
    summary: 'move a parcel to its next status, as warehouse staff (transitions in docs/platform.md)',
    usage: [
      '--id <parcel id>',
      `--to ${PARCEL_STATUSES.join('|')}`,
      '--warehouse <id>     where it happens (required for RECEIVED; ARRIVED without one: in the locker or at the door)',
      '--destination <id>   SENT: the next warehouse; REDIRECT_TO_PVZ: the pickup point (required)',
      '--user <id>          the staff member (of the logistics company or a warehouse company working with it)',
    ],
    flags: flagsOf({ ...statusFlags, to: fChoice(PARCEL_STATUSES) }),
    async run(ctx, f) {
      await changeParcelStatus(
        ctx.db,
        { parcelId: f.id, to: f.to, warehouseId: f.warehouse, destinationWarehouseId: f.destination, userId: f.user },
        ctx.clock.now(),
      );
      return parcelResult(ctx.db, f.id, `parcel is ${f.to}`);
    },
  }),
  defineCommand({
    name: 'cargo create',
    summary: 'register cargo received at a warehouse (RECEIVED)',
    usage: [
      ...SHIPMENT_USAGE,
      '--warehouse <id>    the receiving warehouse (required)',
      '--tractor-number <text>  --track-code <text>',
    ],
    flags: flagsOf({
      ...shipmentFlags,
      company: fId(),
      warehouse: fId(),
      'tractor-number': fText().optional(),
      'track-code': fText().optional(),
    }),
    async run(ctx, f) {
      const c = await createCargo(
        ctx.db,
        {
          companyId: f.company,
          warehouseId: f.warehouse,
          trackCode: f['track-code'],
          tractorNumber: f['tractor-number'],
          weight: f.weight,
          currency: f.currency,
          price: f.price,
          description: f.description,
          clientId: f.client,
          supplierId: f.supplier,
          cargoTypeId: f['cargo-type'],
          deliveryWarehouseId: f['delivery-warehouse'],
          receiptCityId: f['receipt-city'],
          deliveryCityId: f['delivery-city'],
          userId: f.user,
        },
        ctx.clock.now(),
      );
      return cargoResult(ctx.db, c.id, 'registered cargo');
    },
  }),
  defineCommand({
    name: 'cargo show',
    summary: 'show cargo with its status history',
    usage: ['--id <id>'],
    flags: flagsOf({ id: fId() }),
    run: (ctx, f) => cargoResult(ctx.db, f.id),
  }),
  defineCommand({
    name: 'cargo status',
    summary: 'move cargo to its next status, as warehouse staff',
    usage: [
      '--id <cargo id>',
      `--to ${CARGO_STATUSES.join('|')}`,
      '--warehouse <id>  (required for RECEIVED)',
      '--destination <id>',
      '--user <id>',
    ],
    flags: flagsOf({ ...statusFlags, to: fChoice(CARGO_STATUSES) }),
    async run(ctx, f) {
      await changeCargoStatus(
        ctx.db,
        { cargoId: f.id, to: f.to, warehouseId: f.warehouse, destinationWarehouseId: f.destination, userId: f.user },
        ctx.clock.now(),
      );
      return cargoResult(ctx.db, f.id, `cargo is ${f.to}`);
    },
  }),
  defineCommand({
    name: 'payment-order create',
    summary: 'bill a client for parcels and/or cargo',
    usage: [
      '--company <id>  --amount <amount>  --currency <ISO 4217>  (required)',
      '--client <id>',
      '--parcels 1,2  --cargo 3',
      '--paid true|false (default false)',
    ],
    flags: flagsOf({
      company: fId(),
      amount: fPrice(),
      currency: fCurrency(),
      client: fId().optional(),
      parcels: fIdList().optional(),
      cargo: fIdList().optional(),
      paid: fBool().optional(),
    }),
    async run(ctx, f) {
      const o = await createPaymentOrder(
        ctx.db,
        {
          companyId: f.company,
          amount: f.amount,
          currency: f.currency,
          clientId: f.client,
          parcelIds: f.parcels,
          cargoIds: f.cargo,
          isPaid: f.paid,
        },
        ctx.clock.now(),
      );
      return {
        json: withMajor(withBooleans(o), ['amount']),
        text: `created payment order\n${block({ id: o.id, amount: `${money(o.amount)} ${o.currency}`, paid: yesNo(o.isPaid) })}`,
      };
    },
  }),
  defineCommand({
    name: 'payment-order pay',
    summary: 'mark a payment order paid (and everything it covers)',
    usage: ['--id <id>'],
    flags: flagsOf({ id: fId() }),
    async run(ctx, f) {
      const o = await markPaymentOrderPaid(ctx.db, f.id, ctx.clock.now());
      return {
        json: withMajor(withBooleans(o), ['amount']),
        text: `payment order ${o.id} paid (${money(o.amount)} ${o.currency})`,
      };
    },
  }),
];
