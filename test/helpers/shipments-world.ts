/**
 * Parcels and cargo on top of the platform test world, each brought to its state through the
 * services (so every filter column is what production writes) and named after what tells it
 * apart for the list rules: status, pickup point, final point, payment order.
 */
import type { Db } from '../../cloud/storage/database.ts';
import type { CargoStatus, DeliveryMethod, ParcelStatus } from '../../cloud/domain/platform/enums.ts';
import { changeParcelStatus, createParcel } from '../../cloud/services/platform/parcels.ts';
import { changeCargoStatus, createCargo } from '../../cloud/services/platform/cargo.ts';
import { createPaymentOrder } from '../../cloud/services/platform/payment-orders.ts';
import { createClient } from '../../cloud/services/platform/clients.ts';
import { before, after } from 'node:test';
import { ManualClock } from '../../shared/clock.ts';
import { seedPlatformWorld, type PlatformWorld } from './platform-world.ts';
import { startTestCloud, type TestCloud } from './cloud.ts';
import type { TestDialect } from './storage.ts';
import { integrationGet, type IntegrationGet } from './integrations.ts';

type Place = 'store' | 'depot' | 'pvz';
type Who = 'aibek' | 'bermet' | 'stranger' | 'zed' | null;
type Pay = 'paid' | 'unpaid' | null;

interface ParcelPlan {
  who: Who;
  description: string;
  method: DeliveryMethod;
  to: Place | null;
  steps: Array<[ParcelStatus, Place | null, Place | null]>;
  pay: Pay;
  supplier?: boolean;
}

/** name → plan; the comment says what the list rules see. */
export const PARCELS = {
  awaiting: {
    who: 'aibek',
    description: 'Red sneakers',
    method: 'PICKUP',
    to: 'pvz',
    steps: [],
    pay: null,
    supplier: true,
  },
  // RECEIVED at a warehouse that is neither a pickup point nor the delivery warehouse
  receivedHub: {
    who: 'aibek',
    description: 'Blue kettle',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['RECEIVED', 'store', null]],
    pay: 'unpaid',
    supplier: true,
  },
  // RECEIVED at a pickup point: listed as ARRIVED; the final point
  receivedPvzPaid: {
    who: 'bermet',
    description: 'Phone case',
    method: 'PICKUP',
    to: 'pvz',
    steps: [['RECEIVED', 'pvz', null]],
    pay: 'paid',
  },
  receivedPvzNoOrder: {
    who: 'aibek',
    description: 'Headphones',
    method: 'PICKUP',
    to: 'pvz',
    steps: [['RECEIVED', 'pvz', null]],
    pay: null,
  },
  // RECEIVED at its own delivery warehouse: the final point, but not ARRIVED
  receivedAtDelivery: {
    who: 'aibek',
    description: 'Rice cooker',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['RECEIVED', 'depot', null]],
    pay: 'paid',
    supplier: true,
  },
  arrivedFinalPaid: {
    who: 'bermet',
    description: 'Laptop bag',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['ARRIVED', 'depot', null]],
    pay: 'paid',
  },
  arrivedFinalNoOrder: {
    who: 'aibek',
    description: 'Desk lamp',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['ARRIVED', 'depot', null]],
    pay: null,
  },
  // ARRIVED at a warehouse on the way: not the final point
  arrivedOnTheWay: {
    who: 'aibek',
    description: 'Kids bicycle',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['ARRIVED', 'store', null]],
    pay: 'unpaid',
  },
  // ARRIVED at the door (courier delivery, no warehouse): the final point
  arrivedDoorUnpaid: {
    who: 'bermet',
    description: 'Wall clock',
    method: 'COURIER',
    to: null,
    steps: [['ARRIVED', null, null]],
    pay: 'unpaid',
  },
  readyToShip: {
    who: 'aibek',
    description: 'Winter jacket',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['RECEIVED', 'store', null],
      ['READYTOSHIP', null, null],
    ],
    pay: null,
  },
  sent: {
    who: 'bermet',
    description: 'Steel kettle',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['RECEIVED', 'store', null],
      ['READYTOSHIP', null, null],
      ['SENT', null, 'depot'],
    ],
    pay: 'unpaid',
  },
  recall: {
    who: 'aibek',
    description: 'Broken toaster',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['RECALL', null, null]],
    pay: null,
  },
  redirected: {
    who: 'bermet',
    description: 'Yoga mat',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['RECEIVED', 'store', null],
      ['REDIRECT_TO_PVZ', 'store', 'pvz'],
    ],
    pay: 'paid',
  },
  withCourier: {
    who: 'aibek',
    description: 'Coffee machine',
    method: 'COURIER',
    to: null,
    steps: [
      ['RECEIVED', 'store', null],
      ['COURIER_RECEIVED', null, null],
    ],
    pay: null,
  },
  transferred: {
    who: 'bermet',
    description: 'Vacuum cleaner',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['ARRIVED', 'depot', null],
      ['TRANSFERRED', 'depot', null],
    ],
    pay: 'paid',
  },
  completed: {
    who: 'aibek',
    description: 'Tea set',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['ARRIVED', 'depot', null],
      ['TRANSFERRED', 'depot', null],
      ['COMPLETED', null, null],
    ],
    pay: 'paid',
  },
  lost: {
    who: 'aibek',
    description: 'Sunglasses',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['LOST', null, null]],
    pay: null,
  },
  // a client whose code is a number also found in another parcel's description
  zeds: { who: 'zed', description: 'Garden hose', method: 'WAREHOUSE', to: 'depot', steps: [], pay: null },
  model7001: { who: 'bermet', description: 'Radio model 7001', method: 'WAREHOUSE', to: 'depot', steps: [], pay: null },
  // never in Silk Road's lists: another company's client, and a parcel without a client
  strangers: {
    who: 'stranger',
    description: 'Dried apricots kettle',
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [['ARRIVED', 'depot', null]],
    pay: 'paid',
  },
  nobodys: { who: null, description: 'Unlabelled kettle', method: 'WAREHOUSE', to: 'depot', steps: [], pay: null },
} satisfies Record<string, ParcelPlan>;

export type ParcelName = keyof typeof PARCELS;

interface CargoPlan {
  who: Who;
  description: string;
  tractor: string;
  kind: 'cargoType' | 'carType' | 'packageType';
  steps: Array<[CargoStatus, Place | null]>;
  pay: Pay;
}

/** Cargo starts RECEIVED at the store (Urumqi hub) and is headed for the depot. */
export const CARGO = {
  atHub: {
    who: 'aibek',
    description: 'Ceramic tiles',
    tractor: '01KG001AAA',
    kind: 'cargoType',
    steps: [],
    pay: 'paid',
  },
  packed: {
    who: 'bermet',
    description: 'Toyota Camry',
    tractor: '01KG002BBB',
    kind: 'carType',
    steps: [['READYTOSHIP', null]],
    pay: 'unpaid',
  },
  onTheRoad: {
    who: 'aibek',
    description: 'Steel pipes',
    tractor: '01KG003CCC',
    kind: 'cargoType',
    steps: [
      ['READYTOSHIP', null],
      ['SENT', null],
    ],
    pay: null,
  },
  atDepot: {
    who: 'bermet',
    description: 'Honda Fit',
    tractor: '01KG004DDD',
    kind: 'carType',
    steps: [
      ['READYTOSHIP', null],
      ['SENT', null],
      ['RECEIVED', 'depot'],
    ],
    pay: 'paid',
  },
  atPvz: {
    who: 'aibek',
    description: 'Shoes pallet',
    tractor: '01KG005EEE',
    kind: 'packageType',
    steps: [
      ['READYTOSHIP', null],
      ['SENT', null],
      ['RECEIVED', 'pvz'],
    ],
    pay: null,
  },
  handedOver: {
    who: 'aibek',
    description: 'Textile rolls',
    tractor: '01KG006FFF',
    kind: 'packageType',
    steps: [
      ['READYTOSHIP', null],
      ['SENT', null],
      ['TRANSFERRED', null],
    ],
    pay: 'unpaid',
  },
  lost: {
    who: 'bermet',
    description: 'Furniture set',
    tractor: '01KG007GGG',
    kind: 'cargoType',
    steps: [['LOST', null]],
    pay: null,
  },
  strangers: { who: 'stranger', description: 'Cement', tractor: '01KG008HHH', kind: 'cargoType', steps: [], pay: null },
} satisfies Record<string, CargoPlan>;

export type CargoName = keyof typeof CARGO;

export async function seedShipments(db: Db, w: PlatformWorld, now: Date) {
  const zed = await createClient(db, { companyId: w.logist.id, code: 7001, name: 'Zed', phone: '+10000' }, now);
  const clients = { aibek: w.aibek, bermet: w.bermet, stranger: w.stranger, zed };
  const places: Record<Place, number> = { store: w.store.id, depot: w.depot.id, pvz: w.pvz.id };
  const pay = async (
    client: { id: number; companyId: number } | null,
    p: Pay,
    currency: string,
    ids: { parcelIds?: number[]; cargoIds?: number[] },
  ) => {
    if (p)
      await createPaymentOrder(
        db,
        {
          companyId: client?.companyId ?? w.logist.id,
          clientId: client?.id ?? null,
          amount: 100_00,
          currency,
          isPaid: p === 'paid',
          ...ids,
        },
        now,
      );
  };

  const parcels = {} as Record<ParcelName, number>;
  for (const [name, plan] of Object.entries(PARCELS) as Array<[ParcelName, ParcelPlan]>) {
    const client = plan.who ? clients[plan.who] : null;
    let p = await createParcel(
      db,
      {
        companyId: client?.companyId ?? w.logist.id,
        trackCode: `TRK${name.toUpperCase()}`,
        description: plan.description,
        weight: 1.25,
        price: 15_50,
        currency: 'KGS',
        deliveryMethod: plan.method,
        clientId: client?.id ?? null,
        supplierId: plan.supplier ? w.supplier.id : null,
        cargoTypeId: w.packageType.id,
        deliveryWarehouseId: plan.to ? places[plan.to] : null,
        receiptCityId: w.urumqi.id,
        deliveryCityId: w.bishkek.id,
      },
      now,
    );
    for (const [to, where, destination] of plan.steps) {
      p = await changeParcelStatus(
        db,
        {
          parcelId: p.id,
          to,
          warehouseId: where ? places[where] : null,
          destinationWarehouseId: destination ? places[destination] : null,
        },
        now,
      );
    }
    await pay(client, plan.pay, 'KGS', { parcelIds: [p.id] });
    parcels[name] = p.id;
  }

  const cargo = {} as Record<CargoName, number>;
  for (const [name, plan] of Object.entries(CARGO) as Array<[CargoName, CargoPlan]>) {
    const client = plan.who ? clients[plan.who] : null;
    let c = await createCargo(
      db,
      {
        companyId: client?.companyId ?? w.logist.id,
        warehouseId: w.store.id,
        trackCode: `CRG${name.toUpperCase()}`,
        description: plan.description,
        tractorNumber: plan.tractor,
        weight: 1000,
        price: 500_00,
        currency: 'USD',
        clientId: client?.id ?? null,
        cargoTypeId: w[plan.kind].id,
        deliveryWarehouseId: w.depot.id,
        receiptCityId: w.urumqi.id,
        deliveryCityId: w.bishkek.id,
      },
      now,
    );
    for (const [to, where] of plan.steps)
      c = await changeCargoStatus(db, { cargoId: c.id, to, warehouseId: where ? places[where] : null }, now);
    await pay(client, plan.pay, 'USD', { cargoIds: [c.id] });
    cargo[name] = c.id;
  }
  return { parcels, cargo, zed };
}

export type Shipments = Awaited<ReturnType<typeof seedShipments>>;

export interface ShipmentsSuite {
  cloud: TestCloud;
  w: PlatformWorld;
  s: Shipments;
  clock: ManualClock;
  get: IntegrationGet;
}

/**
 * A describe block's server and data: the real cloud on `dialect`, the platform world and these
 * shipments, started before its tests and stopped after. Fields are there once `before` has run.
 */
export function shipmentsSuite(dialect: TestDialect, at: string): ShipmentsSuite {
  const suite = { clock: new ManualClock(at) } as ShipmentsSuite;
  suite.get = integrationGet(() => suite.cloud);
  before(async () => {
    suite.cloud = await startTestCloud(dialect, { clock: suite.clock });
    suite.w = await seedPlatformWorld(suite.cloud.storage.db, suite.clock.now());
    suite.s = await seedShipments(suite.cloud.storage.db, suite.w, suite.clock.now());
  });
  after(() => suite.cloud.stop());
  return suite;
}

/** The names (keys of `ids`) of the items a list answer holds, sorted: order is checked on its own. */
export function namesIn(ids: Record<string, number>, res: { body: any }): string[] {
  const byId = new Map(Object.entries(ids).map(([n, id]) => [id, n]));
  return res.body.data.map((x: { id: number }) => byId.get(x.id)).sort();
}
