/**
 * What the platform demo holds: clients, and parcels and cargo with the staff steps that bring
 * each to its status. Chosen so that every list filter selects something and each special set
 * of the spec is told apart from the others (see docs/operator.md, "Demo data").
 */
import type { CargoKind, CargoStatus, DeliveryMethod, ParcelStatus } from '../../domain/platform/enums.ts';

/** hub: the origin warehouse (Urumqi); depot: the logistics company's own delivery warehouse; storage: the warehouse company's; pvz1/pvz2: pickup points */
export type Place = 'hub' | 'depot' | 'storage' | 'pvz1' | 'pvz2';

export const CLIENTS = [
  {
    company: 'logist',
    name: 'Aibek Sadykov',
    phone: '+996555100001',
    city: 'bishkek',
    address: 'Manas Ave 40',
    viaStorage: true,
  },
  {
    company: 'logist',
    name: 'Bermet Asanova',
    phone: '+996555100002',
    city: 'osh',
    address: 'Lenin St 12',
    viaStorage: false,
  },
  {
    company: 'logist',
    name: 'Chyngyz Tokonov',
    phone: '+996555100003',
    city: 'bishkek',
    address: 'Toktogul St 90',
    viaStorage: true,
  },
  {
    company: 'logist',
    name: 'Dinara Ismailova',
    phone: '+996555100004',
    city: 'bishkek',
    address: 'Kievskaya St 77',
    viaStorage: false,
  },
  {
    company: 'logist',
    name: 'Erlan Bekov',
    phone: '+996555100005',
    city: 'bishkek',
    address: 'Akhunbaev St 119',
    viaStorage: false,
  },
  {
    company: 'logist',
    name: 'Farida Osmonova',
    phone: '+996555100006',
    city: 'bishkek',
    address: 'Sovetskaya St 5',
    viaStorage: false,
  },
  {
    company: 'other',
    name: 'Gulnara Abdieva',
    phone: '+996555200001',
    city: 'osh',
    address: 'Kurmanjan Datka St 3',
    viaStorage: false,
  },
  {
    company: 'other',
    name: 'Hasan Umarov',
    phone: '+996555200002',
    city: 'osh',
    address: 'Masaliev Ave 20',
    viaStorage: false,
  },
] as const;

type Step = readonly [ParcelStatus, Place | null, Place | null];
const R = (where: Place): Step => ['RECEIVED', where, null];
const PACK: Step = ['READYTOSHIP', null, null];
const SEND = (to: Place | null = null): Step => ['SENT', null, to];
const ARRIVE = (where: Place | null): Step => ['ARRIVED', where, null];
const VIA_HUB = (to: Place | null = null): Step[] => [R('hub'), PACK, SEND(to)];

export interface ParcelPlan {
  client: number;
  method: DeliveryMethod;
  to: Place | null;
  kind: CargoKind;
  description: string;
  weight: number;
  /** minor units (KGS) */
  price: number;
  supplier?: boolean;
  market?: boolean;
  payment?: 'paid' | 'unpaid';
  steps: Step[];
}

export const PARCEL_PLAN: ParcelPlan[] = [
  {
    client: 0,
    method: 'PICKUP',
    to: 'pvz1',
    kind: 'PACKAGE',
    description: 'Red sneakers',
    weight: 1.2,
    price: 3_500_00,
    market: true,
    steps: [],
  },
  {
    client: 0,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Blue kettle',
    weight: 1.8,
    price: 1_200_00,
    supplier: true,
    payment: 'unpaid',
    steps: [R('hub')],
  },
  {
    client: 1,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Winter jacket',
    weight: 2.1,
    price: 5_400_00,
    supplier: true,
    steps: [R('hub'), PACK],
  },
  {
    client: 1,
    method: 'PICKUP',
    to: 'pvz2',
    kind: 'PACKAGE',
    description: 'Phone case',
    weight: 0.2,
    price: 450_00,
    steps: VIA_HUB('storage'),
  },
  // ARRIVED at its own delivery warehouse: the final point, with a paid, an unpaid and no payment order.
  {
    client: 2,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Rice cooker',
    weight: 4.5,
    price: 2_800_00,
    supplier: true,
    payment: 'paid',
    steps: [...VIA_HUB('depot'), ARRIVE('depot')],
  },
  {
    client: 3,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Laptop bag',
    weight: 1.1,
    price: 1_900_00,
    payment: 'unpaid',
    steps: [...VIA_HUB('depot'), ARRIVE('depot')],
  },
  {
    client: 0,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Desk lamp',
    weight: 1.4,
    price: 900_00,
    steps: [...VIA_HUB('depot'), ARRIVE('depot')],
  },
  // ARRIVED at a warehouse on the way: not the final point.
  {
    client: 2,
    method: 'PICKUP',
    to: 'pvz1',
    kind: 'PACKAGE',
    description: 'Kids bicycle',
    weight: 9.5,
    price: 7_200_00,
    steps: [...VIA_HUB('storage'), ARRIVE('storage')],
  },
  // RECEIVED at a pickup point: listed as ARRIVED, at the final point.
  {
    client: 3,
    method: 'PICKUP',
    to: 'pvz1',
    kind: 'PACKAGE',
    description: 'Headphones',
    weight: 0.5,
    price: 2_100_00,
    market: true,
    payment: 'unpaid',
    steps: [...VIA_HUB('pvz1'), R('pvz1')],
  },
  {
    client: 4,
    method: 'COURIER',
    to: null,
    kind: 'CARGO',
    description: 'Coffee machine',
    weight: 6.3,
    price: 9_900_00,
    steps: [...VIA_HUB('depot'), ARRIVE('depot'), ['COURIER_RECEIVED', null, null]],
  },
  // ARRIVED at the recipient's door and in the locker: final points without a warehouse.
  {
    client: 5,
    method: 'COURIER',
    to: null,
    kind: 'CARGO',
    description: 'Wall clock',
    weight: 1.0,
    price: 1_300_00,
    payment: 'paid',
    steps: [...VIA_HUB('depot'), ARRIVE('depot'), ['COURIER_RECEIVED', null, null], ARRIVE(null)],
  },
  {
    client: 4,
    method: 'POSTOMAT',
    to: null,
    kind: 'PACKAGE',
    description: 'Smart watch',
    weight: 0.3,
    price: 6_500_00,
    steps: [...VIA_HUB(), ARRIVE(null)],
  },
  {
    client: 5,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Yoga mat',
    weight: 1.6,
    price: 1_100_00,
    steps: [...VIA_HUB('depot'), ARRIVE('depot'), ['REDIRECT_TO_PVZ', 'depot', 'pvz1']],
  },
  {
    client: 1,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Broken toaster',
    weight: 2.0,
    price: 1_500_00,
    supplier: true,
    steps: [R('hub'), ['RECALL', 'hub', null]],
  },
  {
    client: 0,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Vacuum cleaner',
    weight: 5.5,
    price: 8_800_00,
    payment: 'paid',
    steps: [...VIA_HUB('depot'), ARRIVE('depot'), ['TRANSFERRED', 'depot', null]],
  },
  {
    client: 2,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'CARGO',
    description: 'Tea set',
    weight: 2.2,
    price: 2_400_00,
    payment: 'paid',
    steps: [...VIA_HUB('depot'), ARRIVE('depot'), ['TRANSFERRED', 'depot', null], ['COMPLETED', null, null]],
  },
  {
    client: 3,
    method: 'WAREHOUSE',
    to: 'depot',
    kind: 'PACKAGE',
    description: 'Sunglasses',
    weight: 0.2,
    price: 1_700_00,
    steps: [...VIA_HUB('depot'), ['LOST', null, null]],
  },
  {
    client: 4,
    method: 'PICKUP',
    to: 'pvz2',
    kind: 'PACKAGE',
    description: 'Perfume',
    weight: 0.4,
    price: 4_300_00,
    market: true,
    steps: [...VIA_HUB('pvz2'), R('pvz2')],
  },
  {
    client: 5,
    method: 'PICKUP',
    to: 'pvz1',
    kind: 'PACKAGE',
    description: 'Backpack',
    weight: 0.9,
    price: 2_600_00,
    market: true,
    payment: 'paid',
    steps: [...VIA_HUB('pvz1'), ARRIVE('pvz1')],
  },
  // Another logistics company's clients: never in Silk Road's lists.
  {
    client: 6,
    method: 'WAREHOUSE',
    to: null,
    kind: 'PACKAGE',
    description: 'Dried apricots',
    weight: 3.0,
    price: 600_00,
    steps: [],
  },
  {
    client: 7,
    method: 'WAREHOUSE',
    to: null,
    kind: 'PACKAGE',
    description: 'Walnuts',
    weight: 2.5,
    price: 800_00,
    payment: 'unpaid',
    steps: [R('storage')],
  },
];

type CargoStep = readonly [CargoStatus, Place | null];

export interface CargoPlan {
  client: number;
  from: Place;
  to: Place;
  kind: CargoKind;
  description: string;
  tractor: string;
  weight: number;
  /** minor units (USD) */
  price: number;
  payment?: 'paid' | 'unpaid';
  steps: CargoStep[];
}

const SHIP: CargoStep[] = [
  ['READYTOSHIP', null],
  ['SENT', null],
];

export const CARGO_PLAN: CargoPlan[] = [
  {
    client: 0,
    from: 'hub',
    to: 'depot',
    kind: 'CARGO',
    description: 'Ceramic tiles',
    tractor: '01KG001AAA',
    weight: 1200,
    price: 950_00,
    payment: 'paid',
    steps: [],
  },
  {
    client: 1,
    from: 'hub',
    to: 'depot',
    kind: 'CAR',
    description: 'Toyota Camry 2019',
    tractor: '01KG002BBB',
    weight: 1500,
    price: 1_800_00,
    payment: 'unpaid',
    steps: [['READYTOSHIP', null]],
  },
  {
    client: 2,
    from: 'hub',
    to: 'depot',
    kind: 'FREIGHT',
    description: 'Steel pipes',
    tractor: '01KG003CCC',
    weight: 18000,
    price: 4_200_00,
    steps: SHIP,
  },
  {
    client: 3,
    from: 'hub',
    to: 'depot',
    kind: 'PACKAGE',
    description: 'Textile rolls',
    tractor: '01KG004DDD',
    weight: 800,
    price: 600_00,
    steps: [...SHIP, ['TRANSFERRED', null]],
  },
  {
    client: 4,
    from: 'hub',
    to: 'depot',
    kind: 'CARGO',
    description: 'Furniture set',
    tractor: '01KG005EEE',
    weight: 2300,
    price: 1_100_00,
    steps: [['LOST', null]],
  },
  // RECEIVED at its delivery warehouse and at a pickup point: the final point; at the warehouse company's: not.
  {
    client: 5,
    from: 'hub',
    to: 'depot',
    kind: 'CAR',
    description: 'Honda Fit',
    tractor: '01KG006FFF',
    weight: 1100,
    price: 1_600_00,
    payment: 'paid',
    steps: [...SHIP, ['RECEIVED', 'depot']],
  },
  {
    client: 0,
    from: 'hub',
    to: 'depot',
    kind: 'PACKAGE',
    description: 'Shoes pallet',
    tractor: '01KG007GGG',
    weight: 400,
    price: 300_00,
    steps: [...SHIP, ['RECEIVED', 'pvz1']],
  },
  {
    client: 2,
    from: 'hub',
    to: 'depot',
    kind: 'FREIGHT',
    description: 'Cement',
    tractor: '01KG008HHH',
    weight: 20000,
    price: 2_500_00,
    steps: [...SHIP, ['RECEIVED', 'storage']],
  },
];
