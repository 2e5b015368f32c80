/**
 * The marketplace's test world: the locker world (lockers with cells) and the platform world
 * (Bazaar Online, a marketplace with locker access whose partner is Silk Road Logistics),
 * plus a marketplace without locker access, one whose locker company cannot pay, and one
 * without partners. Orders cost the market's locker company 50.00 each.
 */
import type { TestApi, TestResponse } from './cloud.ts';
import { seedLockerWorld } from './locker-world.ts';
import { seedPlatformWorld } from './platform-world.ts';
import { createLockerCompany, updateLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createPlatformApiKey } from '../../cloud/services/platform/api-keys.ts';

export const M = '/api/v1/integrations/market-company';
export const ORDER_PRICE = 5000;

export async function seedMarketWorld(cloud: TestApi) {
  const db = cloud.storage.db;
  const lw = await seedLockerWorld(db);
  const w = await seedPlatformWorld(db);
  await updateLockerCompany(db, w.lockerCompany.id, { orderPrice: ORDER_PRICE }, new Date());
  const key = async (companyId: number) => (await createPlatformApiKey(db, companyId, 'test', new Date())).key;
  const quick = await createPlatformCompany(
    db,
    { title: 'Quick Shop', type: 'MARKETPLACE', partnerIds: [w.logist.id] },
    new Date(),
  );
  const poorLockers = await createLockerCompany(db, { title: 'Poor Lockers', orderPrice: 100, balance: 0 }, new Date());
  const poor = await createPlatformCompany(
    db,
    {
      title: 'Poor Shop',
      type: 'MARKETPLACE',
      partnerIds: [w.logist.id],
      lockerCompanyId: poorLockers.id,
      lockerAccess: true,
    },
    new Date(),
  );
  const lonely = await createPlatformCompany(db, { title: 'Lonely Shop', type: 'MARKETPLACE' }, new Date());
  const keys = {
    market: w.keys.market.key,
    quick: await key(quick.id),
    poor: await key(poor.id),
    lonely: await key(lonely.id),
  };
  return { lw, w, quick, poor, lonely, keys };
}

export type MarketWorld = Awaited<ReturnType<typeof seedMarketWorld>>;

let keySeq = 0;
export const newKey = () => `key-${process.pid}-${++keySeq}`;

export function marketClient(cloud: TestApi, world: MarketWorld) {
  const { w } = world;
  const party = (phone: string, place: { country: number; city: number }, name = 'Aida') => ({
    name,
    phone,
    address: 'Chui 1',
    ...place,
  });
  const bishkek = { country: w.kg.id, city: w.bishkek.id };
  const urumqi = { country: w.cn.id, city: w.urumqi.id };
  return {
    bishkek,
    urumqi,
    party,
    /** a PICKUP parcel to the market's pickup point; `extra` overrides any field */
    body: (extra: Record<string, unknown> = {}) => ({
      deliveryMethod: 'PICKUP',
      warehouseId: w.pvz.id,
      weight: 1.25,
      price: 12.5,
      currency: 'kgs',
      receiver: party('+996700100001', bishkek),
      sender: party('+8613900000001', urumqi, 'Yiwu Shoes'),
      ...extra,
    }),
    /** a POSTOMAT parcel with its locker order at `postomatId` */
    lockerBody: (postomatId: string, extra: Record<string, unknown> = {}) => ({
      deliveryMethod: 'POSTOMAT',
      postomatId,
      createPostomatOrder: true,
      weight: 0.5,
      currency: 'KGS',
      receiver: party('+996700100002', bishkek, 'Bermet'),
      sender: party('+8613900000001', urumqi, 'Yiwu Shoes'),
      ...extra,
    }),
    create: (body: unknown, options: { key?: string | null; apiKey?: string } = {}): Promise<TestResponse> => {
      const headers: Record<string, string> = { 'x-api-token': options.apiKey ?? world.keys.market };
      const key = options.key === undefined ? newKey() : options.key;
      if (key !== null) headers['Idempotency-Key'] = key;
      return cloud.request('POST', `${M}/parcel/create`, { body, headers });
    },
    request: (method: string, path: string, options: { body?: unknown; apiKey?: string } = {}) =>
      cloud.request(method, `${M}${path}`, {
        body: options.body,
        headers: { 'x-api-token': options.apiKey ?? world.keys.market },
      }),
  };
}
