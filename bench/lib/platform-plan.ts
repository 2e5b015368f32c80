/**
 * What the platform benchmark seeds, item by item, and the rows the platform services write for
 * it. The first items go through the real services, the rest are written straight to the
 * database as `platformRows` computes them with the same domain rules (placement, final point,
 * search text); the benchmark compares the two on the first items before it measures.
 */
import type { DeliveryMethod, ParcelStatus } from '../../cloud/domain/platform/enums.ts';
import { parcelPlaceAfter, type ParcelPlace, type WarehouseFacts } from '../../cloud/domain/platform/placement.ts';
import { parcelSearchText } from '../../cloud/domain/platform/search-text.ts';
import { codeNamesFor } from '../../cloud/domain/platform/client-codes.ts';
import { PARCEL_INITIAL } from '../../cloud/domain/platform/statuses.ts';

export type Place = 'hub' | 'depot' | 'pvz';
export type Step = readonly [ParcelStatus, Place | null, Place | null];

export interface BenchClient {
  id: number;
  companyId: number;
  code: number;
  name: string;
  phone: string;
}

export interface ParcelPlan {
  client: BenchClient;
  trackCode: string;
  description: string;
  method: DeliveryMethod;
  to: Place | null;
  cargoTypeId: number;
  steps: readonly Step[];
  pay: 'paid' | 'unpaid' | null;
}

const FIRST = [
  'Aibek',
  'Bermet',
  'Chyngyz',
  'Dinara',
  'Erlan',
  'Farida',
  'Gulnara',
  'Hasan',
  'Islam',
  'Jyldyz',
  'Kanat',
  'Leila',
  'Marat',
  'Nurlan',
  'Olga',
  'Pavel',
  'Ruslan',
  'Saltanat',
  'Timur',
  'Ulan',
  'Venera',
  'Zarina',
  'Adilet',
  'Baktygul',
  'Cholpon',
  'Daniyar',
  'Elmira',
  'Fyodor',
  'Gulzat',
  'Ilyas',
  'Janyl',
  'Kairat',
  'Lira',
  'Maksat',
  'Nazgul',
  'Omurbek',
  'Perizat',
  'Rinat',
  'Sezim',
  'Tilek',
  'Urmat',
  'Vera',
  'Yrys',
  'Zhibek',
  'Azamat',
  'Begaiym',
  'Chynara',
  'Dastan',
  'Emil',
  'Gulmira',
  'Ibrahim',
  'Kalys',
  'Meerim',
  'Nurbek',
  'Rakhat',
  'Samat',
  'Talant',
  'Ainura',
  'Beknazar',
  'Aijan',
];
const LAST = [
  'Sadykov',
  'Asanova',
  'Tokonov',
  'Ismailova',
  'Bekov',
  'Osmonova',
  'Abdieva',
  'Umarov',
  'Petrov',
  'Kim',
  'Li',
  'Wang',
  'Ivanov',
  'Sidorova',
  'Mamytov',
  'Duishenova',
  'Karimov',
  'Zhumabaeva',
  'Orozov',
  'Satybaldieva',
  'Moldobaev',
  'Toktogulova',
  'Alymkulov',
  'Sultanova',
  'Beishenaliev',
  'Kasymova',
  'Jeenbekov',
  'Myrzakmatova',
  'Shamshiev',
  'Turdubaeva',
  'Baibosunov',
  'Nurmatova',
  'Esenaliev',
  'Kydyralieva',
  'Abdrakhmanov',
  'Usenova',
  'Akmatov',
  'Choroeva',
  'Dzhaparov',
  'Ergeshova',
  'Imanaliev',
  'Kaparova',
  'Matkerimov',
  'Nasirova',
  'Otorbaev',
  'Raimbekova',
  'Sydykov',
  'Temirova',
  'Uzakbaev',
  'Zulpueva',
  'Arykov',
  'Bolotova',
  'Cholponbaev',
  'Dosova',
  'Eshmatov',
  'Ganieva',
  'Ibraev',
  'Joldoshova',
  'Kenjebaev',
  'Lukmanova',
];
const GOODS = [
  'sneakers',
  'kettle',
  'jacket',
  'phone case',
  'rice cooker',
  'laptop bag',
  'desk lamp',
  'bicycle',
  'headphones',
  'coffee machine',
  'wall clock',
  'smart watch',
  'yoga mat',
  'toaster',
  'vacuum cleaner',
  'tea set',
  'sunglasses',
  'perfume',
  'backpack',
  'blender',
  'scarf',
  'umbrella',
  'keyboard',
  'monitor',
  'drill',
  'stroller',
  'carpet',
  'mirror',
  'frying pan',
  'dress',
];
const ADJECTIVES = [
  'red',
  'blue',
  'green',
  'black',
  'white',
  'small',
  'large',
  'steel',
  'wooden',
  'kids',
  'winter',
  'summer',
  'leather',
  'silk',
  'cotton',
  'golden',
  'silver',
  'pink',
  'grey',
  'travel',
];

/** Deterministic mixing, so a run is reproducible and neighbours differ. */
export const mix = (n: number) => {
  let x = (n + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
};

export const clientName = (i: number) => `${FIRST[mix(i) % FIRST.length]} ${LAST[mix(i + 7_777_777) % LAST.length]}`;
/** Distinct mobile numbers whose last seven digits look random (a bijection of the client number below 10^7). */
export const clientPhone = (i: number) => `+99670${String((i * 7_919_993 + 1_234_567) % 10_000_000).padStart(7, '0')}`;

const TRACK_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export function trackCode(i: number): string {
  let code = 'PL';
  for (let k = 0, x = mix(i), y = mix(i + 1_000_003); k < 10; k++) {
    code += TRACK_ALPHABET[(k < 5 ? x : y) % TRACK_ALPHABET.length];
    if (k < 5) x = Math.floor(x / TRACK_ALPHABET.length);
    else y = Math.floor(y / TRACK_ALPHABET.length);
  }
  return code;
}

/** Mostly delivered history, the rest spread over the open statuses. */
const JOURNEYS: Array<{ weight: number; method: DeliveryMethod; to: Place | null; steps: Step[] }> = [
  {
    weight: 45,
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['RECEIVED', 'hub', null],
      ['READYTOSHIP', null, null],
      ['SENT', null, 'depot'],
      ['ARRIVED', 'depot', null],
      ['TRANSFERRED', 'depot', null],
      ['COMPLETED', null, null],
    ],
  },
  {
    weight: 10,
    method: 'PICKUP',
    to: 'pvz',
    steps: [
      ['RECEIVED', 'hub', null],
      ['READYTOSHIP', null, null],
      ['SENT', null, 'pvz'],
      ['RECEIVED', 'pvz', null],
    ],
  },
  {
    weight: 10,
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['RECEIVED', 'hub', null],
      ['READYTOSHIP', null, null],
      ['SENT', null, 'depot'],
      ['ARRIVED', 'depot', null],
    ],
  },
  {
    weight: 10,
    method: 'WAREHOUSE',
    to: 'depot',
    steps: [
      ['RECEIVED', 'hub', null],
      ['READYTOSHIP', null, null],
      ['SENT', null, 'depot'],
    ],
  },
  { weight: 10, method: 'WAREHOUSE', to: 'depot', steps: [['RECEIVED', 'hub', null]] },
  {
    weight: 5,
    method: 'COURIER',
    to: null,
    steps: [
      ['RECEIVED', 'hub', null],
      ['COURIER_RECEIVED', null, null],
      ['ARRIVED', null, null],
    ],
  },
  { weight: 5, method: 'PICKUP', to: 'pvz', steps: [] },
  { weight: 5, method: 'WAREHOUSE', to: 'depot', steps: [['LOST', null, null]] },
];
const JOURNEY_OF: number[] = JOURNEYS.flatMap((j, k) => Array(j.weight).fill(k));

export function parcelPlan(i: number, clients: (n: number) => BenchClient, cargoTypeIds: number[]): ParcelPlan {
  const h = mix(i * 31 + 5);
  const journey = JOURNEYS[JOURNEY_OF[h % JOURNEY_OF.length]];
  return {
    client: clients(mix(i * 17 + 3)),
    trackCode: trackCode(i),
    description: `${ADJECTIVES[h % ADJECTIVES.length]} ${GOODS[(h >>> 8) % GOODS.length]}`,
    method: journey.method,
    to: journey.to,
    cargoTypeId: cargoTypeIds[(h >>> 16) % cargoTypeIds.length],
    steps: journey.steps,
    pay: (h >>> 20) % 10 < 3 ? 'paid' : (h >>> 20) % 10 < 5 ? 'unpaid' : null,
  };
}

export interface PlanWorld {
  logistCompanyOf: (client: BenchClient) => number;
  places: Record<Place, WarehouseFacts>;
  codesOf: (companyId: number) => Array<{ title: string; cargoTypeId: number }>;
  receiptCityId: number;
  deliveryCityId: number;
}

const CURRENCY = 'KGS';
const PRICE = 25_00;
const WEIGHT = 1.5;

/** The parcel row, its status records and its payment order, as the services write them for a plan. */
export function platformRows(plan: ParcelPlan, w: PlanWorld, at: string) {
  const placeId = (p: Place | null) => (p === null ? null : w.places[p].id);
  const facts = (id: number | null) =>
    id === null ? null : (Object.values(w.places).find((f) => f.id === id) ?? null);
  const companyId = w.logistCompanyOf(plan.client);
  let place: ParcelPlace & { atPickupPoint: boolean; atFinalPoint: boolean } = {
    status: PARCEL_INITIAL,
    deliveryMethod: plan.method,
    originWarehouseId: null,
    currentWarehouseId: null,
    deliveryWarehouseId: placeId(plan.to),
    redirectedAt: null,
    atPickupPoint: false,
    atFinalPoint: false,
  };
  const record = (status: ParcelStatus, warehouseId: number | null, destinationWarehouseId: number | null) => ({
    status,
    warehouseId,
    originWarehouseId: place.originWarehouseId,
    destinationWarehouseId: destinationWarehouseId ?? place.deliveryWarehouseId,
    originCityId: w.receiptCityId,
    destinationCityId: w.deliveryCityId,
    userId: null,
    createdAt: at,
    updatedAt: at,
  });
  const statuses = [record(PARCEL_INITIAL, null, null)];
  for (const [to, where, destination] of plan.steps) {
    place = parcelPlaceAfter(place, {
      to,
      warehouse: facts(placeId(where)),
      destination: facts(placeId(destination)),
      current: facts(place.currentWarehouseId),
      at: new Date(at),
    });
    statuses.push(record(to, placeId(where), placeId(destination)));
  }
  const order =
    plan.pay === null
      ? null
      : {
          companyId,
          clientId: plan.client.id,
          amount: PRICE,
          currency: CURRENCY,
          isPaid: plan.pay === 'paid' ? 1 : 0,
          paidAt: plan.pay === 'paid' ? at : null,
          createdAt: at,
          updatedAt: at,
        };
  const parcel = {
    trackCode: plan.trackCode,
    description: plan.description,
    weight: WEIGHT,
    price: PRICE,
    currency: CURRENCY,
    companyId,
    clientId: plan.client.id,
    clientCompanyId: plan.client.companyId,
    clientCode: plan.client.code,
    supplierId: null,
    cargoTypeId: plan.cargoTypeId,
    originWarehouseId: place.originWarehouseId,
    currentWarehouseId: place.currentWarehouseId,
    deliveryWarehouseId: place.deliveryWarehouseId,
    receiptCityId: w.receiptCityId,
    deliveryCityId: w.deliveryCityId,
    isPaid: order ? order.isPaid : null,
    status: place.status,
    atPickupPoint: place.atPickupPoint ? 1 : 0,
    atFinalPoint: place.atFinalPoint ? 1 : 0,
    searchText: parcelSearchText(plan, codeNamesFor(w.codesOf(plan.client.companyId), plan.cargoTypeId)),
    deliveryMethod: place.deliveryMethod,
    postomatId: null,
    postomatOrderId: null,
    partnerCompanyId: null,
    redirectedAt: place.redirectedAt,
    createdAt: at,
    updatedAt: at,
  };
  return { parcel, statuses, order };
}

export const PARCEL_DEFAULTS = { currency: CURRENCY, price: PRICE, weight: WEIGHT };
