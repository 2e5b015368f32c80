/**
 * The locker half of the demo dataset: one country with two cities (and an inactive third),
 * two companies (a paid and a free one) with API keys, active lockers with coordinates, agent
 * credentials and two boards of S/M/L cells, inactive lockers, and one locker without
 * coordinates. Written in one transaction, only into an empty database.
 */
import type { Db } from '../../storage/database.ts';
import { rowCount } from '../../storage/row-counts.ts';
import { toMajor } from '../../domain/money.ts';
import { OperatorError, type OperatorContext } from '../command.ts';
import { createLockerApiKey, createLockerCompany } from '../../services/admin/companies.ts';
import { createCity, createCountry, createDistrict } from '../../services/admin/directories.ts';
import {
  insertPostomat,
  resetAgentCredentials,
  type CellInput,
  type CellSize,
} from '../../services/admin/postomats.ts';
import { inTransaction } from '../../services/platform/tx.ts';

export interface DemoCell {
  id: string;
  number: number;
  size: string;
  /** board bus address and lock number, as the simulator wires them */
  board: number;
  lock: number;
}

export interface DemoPostomat {
  id: string;
  shortId: string;
  title: string;
  address: string | null;
  cityId: string | null;
  districtId: string | null;
  lat: number | null;
  lng: number | null;
  cells: DemoCell[];
  agent: { username: string; password: string };
}

export interface LockerDemo {
  country: { id: string; title: string };
  cities: Array<{ id: string; title: string; isActive: boolean; districts: Array<{ id: string; title: string }> }>;
  /** money in major units, as the Locker API shows it */
  companies: Array<{
    id: string;
    title: string;
    apiKey: string;
    apiKeyId: string;
    balance: number;
    orderPrice: number;
    deliveryPrice: number;
    defaultDays: number;
  }>;
  /** active lockers with coordinates, cells and agent credentials */
  postomats: DemoPostomat[];
  inactivePostomatIds: string[];
  /** active, with cells and credentials, but no coordinates (left out of distance searches) */
  postomatWithoutCoordinates: DemoPostomat;
}

/** Cells over boards 0 and 1: `sizes` is the size of each lock, in lock order, on every board. */
export function twoBoardLayout(sizes: string): CellInput[] {
  return [0, 1].flatMap((board) =>
    [...sizes].map((size, i) => ({ number: board * sizes.length + i + 1, size: size as CellSize, board, lock: i + 1 })),
  );
}

const CITIES = [
  { title: 'Bishkek', isActive: true, districts: ['Leninsky', 'Oktyabrsky', 'Pervomaisky', 'Sverdlovsky'] },
  { title: 'Osh', isActive: true, districts: ['Amir-Timur', 'Turan'] },
  { title: 'Karakol', isActive: false, districts: ['Center'] },
];

const COMPANIES = [
  {
    title: 'Express Courier',
    orderPrice: 15000,
    deliveryPrice: 0,
    balance: 500000,
    defaultDays: 3,
    notificationUrl: null,
  },
  { title: 'Green Market', orderPrice: 0, deliveryPrice: 0, balance: 100000, defaultDays: 5, notificationUrl: null },
];

interface LockerSeed {
  shortId: string;
  title: string;
  address: string;
  city: string;
  district: string;
  lat?: number;
  lng?: number;
  schedule: string;
  sizes: string;
  isActive?: boolean;
}

const ACTIVE: LockerSeed[] = [
  {
    shortId: 'BSK101',
    title: 'TSUM Chui',
    address: 'Chui Ave 155',
    city: 'Bishkek',
    district: 'Pervomaisky',
    lat: 42.8765,
    lng: 74.6147,
    schedule: '08:00-22:00',
    sizes: 'SSSMMMLL',
  },
  {
    shortId: 'BSK102',
    title: 'Asia Mall',
    address: 'Chui Ave 3/1',
    city: 'Bishkek',
    district: 'Sverdlovsky',
    lat: 42.8556,
    lng: 74.5862,
    schedule: '24/7',
    sizes: 'SSMMLL',
  },
  {
    shortId: 'BSK103',
    title: 'Dordoi Plaza',
    address: 'Ibraimov St 115',
    city: 'Bishkek',
    district: 'Oktyabrsky',
    lat: 42.8747,
    lng: 74.6196,
    schedule: '09:00-21:00',
    sizes: 'SMML',
  },
  {
    shortId: 'OSH201',
    title: 'Osh Central Bazaar',
    address: 'Alisher Navoi St 62',
    city: 'Osh',
    district: 'Amir-Timur',
    lat: 40.5283,
    lng: 72.7985,
    schedule: '07:00-20:00',
    sizes: 'SSMMLL',
  },
];
const INACTIVE: LockerSeed[] = [
  {
    shortId: 'BSK104',
    title: 'Vefa Center (under repair)',
    address: 'Gorky St 27/1',
    city: 'Bishkek',
    district: 'Leninsky',
    lat: 42.8579,
    lng: 74.6091,
    schedule: '10:00-22:00',
    sizes: 'SMLL',
    isActive: false,
  },
  {
    shortId: 'KRK301',
    title: 'Karakol Bus Station',
    address: 'Jamansariev St 1',
    city: 'Karakol',
    district: 'Center',
    lat: 42.4907,
    lng: 78.3936,
    schedule: '08:00-20:00',
    sizes: 'SSML',
    isActive: false,
  },
];
const WITHOUT_COORDINATES: LockerSeed = {
  shortId: 'OSH202',
  title: 'Osh Airport Arrivals',
  address: 'Osh International Airport',
  city: 'Osh',
  district: 'Turan',
  schedule: '24/7',
  sizes: 'SMML',
};

export async function seedLockerDemo(ctx: OperatorContext): Promise<LockerDemo> {
  return inTransaction(ctx.db, async (trx) => {
    await refuseIfNotEmpty(trx);
    const now = ctx.clock.now();

    const country = await createCountry(trx, 'Kyrgyzstan', true, now);
    const cities: LockerDemo['cities'] = [];
    const placeIds = new Map<string, { cityId: string; districtId: string }>();
    for (const c of CITIES) {
      const city = await createCity(trx, country.id, c.title, c.isActive, now);
      const districts = [];
      for (const title of c.districts) {
        const d = await createDistrict(trx, city.id, title, true, now);
        districts.push({ id: d.id, title });
        placeIds.set(`${c.title}/${title}`, { cityId: city.id, districtId: d.id });
      }
      cities.push({ id: city.id, title: city.title, isActive: c.isActive, districts });
    }
    ctx.progress(`directories: 1 country, ${cities.length} cities`);

    const companies: LockerDemo['companies'] = [];
    for (const c of COMPANIES) {
      const company = await createLockerCompany(trx, c, now);
      const key = await createLockerApiKey(trx, company.id, 'demo', now);
      companies.push({
        id: company.id,
        title: company.title,
        apiKey: key.key,
        apiKeyId: key.id,
        balance: toMajor(company.balance),
        orderPrice: toMajor(company.orderPrice),
        deliveryPrice: toMajor(company.deliveryPrice),
        defaultDays: company.defaultDays,
      });
    }
    ctx.progress(`companies: ${companies.length}`);

    const create = async (seed: LockerSeed): Promise<DemoPostomat> => {
      const place = placeIds.get(`${seed.city}/${seed.district}`)!;
      const p = await insertPostomat(
        trx,
        {
          title: seed.title,
          address: seed.address,
          schedule: seed.schedule,
          shortId: seed.shortId,
          lat: seed.lat,
          lng: seed.lng,
          isActive: seed.isActive,
          ...place,
        },
        twoBoardLayout(seed.sizes),
        now,
      );
      const agent = await resetAgentCredentials(trx, p.id, now);
      return {
        id: p.id,
        shortId: p.shortId,
        title: p.title,
        address: p.address,
        cityId: p.cityId,
        districtId: p.districtId,
        lat: p.lat,
        lng: p.lng,
        cells: p.cells.map((c) => ({ id: c.id, number: c.number, size: c.size, board: c.boardAddress, lock: c.lock })),
        agent,
      };
    };
    const postomats = [];
    for (const seed of ACTIVE) postomats.push(await create(seed));
    const inactivePostomatIds = [];
    for (const seed of INACTIVE) inactivePostomatIds.push((await create(seed)).id);
    const postomatWithoutCoordinates = await create(WITHOUT_COORDINATES);
    ctx.progress(`lockers: ${postomats.length + inactivePostomatIds.length + 1}`);

    return {
      country: { id: country.id, title: country.title },
      cities,
      companies,
      postomats,
      inactivePostomatIds,
      postomatWithoutCoordinates,
    };
  });
}

async function refuseIfNotEmpty(db: Db) {
  const [companies, lockers] = await Promise.all([rowCount(db, 'locker_company'), rowCount(db, 'postomat')]);
  if (companies > 0 || lockers > 0) {
    throw new OperatorError(
      `seed-demo fills an empty database only; this one has ${companies} locker companies and ${lockers} lockers (use a fresh DATABASE_URL)`,
    );
  }
}
