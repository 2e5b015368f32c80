/**
 * Two companies of every type, each with objects of every kind, built alike so that any object
 * of one has a twin of the other: two locker companies (orders at a shared locker), and two
 * platform companies each of LOGIST, WAREHOUSE, MARKETPLACE and COURIER, every one with an
 * administrator and an API key. Each LOGIST has a client, a supplier, a parcel, cargo, a webhook
 * and locker access to its own locker company; each WAREHOUSE works with one LOGIST; each
 * MARKETPLACE works with one LOGIST, has a pickup point, locker access, and parcels (one to a
 * pickup point, one to the locker with its locker order) made over its API.
 */
import assert from 'node:assert/strict';
import type { TestApi } from './cloud.ts';
import { testUow } from './locker-world.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { createOrder } from '../../cloud/services/create-order.ts';
import { createPlatformCity, createPlatformCountry } from '../../cloud/services/platform/directories.ts';
import { createCargoType } from '../../cloud/services/platform/cargo-types.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createPlatformUser } from '../../cloud/services/platform/users.ts';
import { createPlatformApiKey } from '../../cloud/services/platform/api-keys.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { createClient, createSupplier } from '../../cloud/services/platform/clients.ts';
import { createParcel } from '../../cloud/services/platform/parcels.ts';
import { createCargo } from '../../cloud/services/platform/cargo.ts';
import { createWebhook } from '../../cloud/services/platform/webhooks.ts';
import type { CompanyType } from '../../cloud/domain/platform/enums.ts';
import { systemClock } from '../../shared/clock.ts';

export const ISOLATION_PASSWORD = 'isolation pass 1234';
export const PLATFORM_TYPES = [
  'LOGIST',
  'WAREHOUSE',
  'MARKETPLACE',
  'COURIER',
] as const satisfies readonly CompanyType[];
export type PlatformType = (typeof PLATFORM_TYPES)[number];

export interface LockerTenant {
  name: string;
  id: string;
  key: string;
  order: string;
}

export interface PlatformTenant {
  name: string;
  type: PlatformType;
  id: number;
  key: string;
  adminToken: string;
  apiKeyId: number;
  /** the locker company it acts as through the platform, if any */
  lockerCompanyId?: string;
  /** LOGIST */
  client?: { id: number; code: number; codeName: string };
  supplier?: { id: number; phone: string };
  parcel?: number;
  cargo?: number;
  webhook?: number;
  /** MARKETPLACE */
  pickupPoint?: number;
  trackCode?: string;
  lockerParcelTrackCode?: string;
  marketLockerOrder?: string;
  /** the LOGIST it works with (WAREHOUSE, MARKETPLACE) */
  partner?: number;
}

export async function seedIsolationWorld(cloud: TestApi) {
  const db = cloud.storage.db;
  const now = new Date();
  const uow = testUow(cloud.storage);
  const locker = await createPostomat(
    db,
    { title: 'Shared Locker', shortId: 'ISO001', lat: 42.87, lng: 74.59 },
    ['S', 'M', 'L', 'L'].map((size, i) => ({ number: i + 1, size: size as 'S', board: 0, lock: i + 1 })),
    now,
  );

  const lockerTenants: LockerTenant[] = [];
  for (const name of ['Locker One', 'Locker Two']) {
    const c = await createLockerCompany(db, { title: name, balance: 1_000_000, orderPrice: 0, defaultDays: 3 }, now);
    const key = (await createLockerApiKey(db, c.id, undefined, now)).key;
    const order = await createOrder(
      { uow, clock: systemClock },
      { companyId: c.id, postomatId: locker.id, toUserPhone: '+996555000101', sendMessage: false },
    );
    lockerTenants.push({ name, id: c.id, key, order: order.id });
  }

  const kg = await createPlatformCountry(db, { title: 'Kyrgyzstan' }, now);
  const bishkek = await createPlatformCity(db, { countryId: kg.id, title: 'Bishkek', lat: 42.87, lng: 74.59 }, now);
  const cargoType = await createCargoType(db, { title: 'Cargo', type: 'CARGO', isParent: true }, now);

  const tenants: PlatformTenant[] = [];
  const login = async (email: string) => {
    const res = await cloud.request('POST', '/api/v1/auth/login', { body: { email, password: ISOLATION_PASSWORD } });
    assert.equal(res.status, 200, res.text);
    return res.body.accessToken as string;
  };
  const make = async (
    name: string,
    type: PlatformType,
    extra: Partial<Parameters<typeof createPlatformCompany>[1]> = {},
  ): Promise<PlatformTenant> => {
    const c = await createPlatformCompany(db, { title: name, type, cityId: bishkek.id, ...extra }, now);
    const email = `admin@${name.toLowerCase().replace(/\W+/g, '-')}.example`;
    await createPlatformUser(db, { email, password: ISOLATION_PASSWORD, role: 'ADMIN', companyId: c.id }, now);
    const apiKey = await createPlatformApiKey(db, c.id, 'main', now);
    const t: PlatformTenant = {
      name,
      type,
      id: c.id,
      key: apiKey.key,
      apiKeyId: apiKey.id,
      adminToken: await login(email),
      lockerCompanyId: extra.lockerAccess ? (extra.lockerCompanyId ?? undefined) : undefined,
    };
    tenants.push(t);
    return t;
  };

  for (const n of [0, 1] as const) {
    const lockerCompanyId = lockerTenants[n].id;
    const codeName = n === 0 ? 'ISOA' : 'ISOB';
    const logist = await make(`Logist ${n + 1}`, 'LOGIST', {
      codes: [{ title: codeName, cargoTypeId: cargoType.id }],
      lockerCompanyId,
      lockerAccess: true,
    });
    const client = await createClient(
      db,
      { companyId: logist.id, name: `Client ${n + 1}`, phone: `+99655510000${n}`, cityId: bishkek.id },
      now,
    );
    logist.client = { id: client.id, code: client.code, codeName };
    const supplier = await createSupplier(
      db,
      { companyId: logist.id, phone: `+86138000000${n}0`, name: `Supplier ${n + 1}` },
      now,
    );
    logist.supplier = { id: supplier.id, phone: supplier.phone };
    const depot = await createWarehouse(db, { companyId: logist.id, title: `Depot ${n + 1}`, cityId: bishkek.id }, now);
    logist.parcel = (
      await createParcel(
        db,
        {
          companyId: logist.id,
          trackCode: `ISO-PARCEL-${n + 1}`,
          weight: 1,
          currency: 'KGS',
          clientId: client.id,
          supplierId: supplier.id,
          cargoTypeId: cargoType.id,
        },
        now,
      )
    ).id;
    logist.cargo = (
      await createCargo(
        db,
        {
          companyId: logist.id,
          warehouseId: depot.id,
          trackCode: `ISO-CARGO-${n + 1}`,
          weight: 100,
          currency: 'USD',
          clientId: client.id,
          supplierId: supplier.id,
          cargoTypeId: cargoType.id,
        },
        now,
      )
    ).id;
    logist.webhook = (
      await createWebhook(
        db,
        logist.id,
        {
          type: 'PARCEL',
          subtype: 'DELIVERED_TO_POSTOMAT',
          url: `https://hooks.logist${n + 1}.example/placed`,
          apiKey: `hook-secret-${n + 1}`,
        },
        now,
      )
    ).id;

    const warehouse = await make(`Warehouse ${n + 1}`, 'WAREHOUSE', { partnerIds: [logist.id] });
    warehouse.partner = logist.id;

    const market = await make(`Market ${n + 1}`, 'MARKETPLACE', {
      partnerIds: [logist.id],
      lockerCompanyId,
      lockerAccess: true,
    });
    market.partner = logist.id;
    market.pickupPoint = (
      await createWarehouse(
        db,
        {
          companyId: market.id,
          title: `Pickup ${n + 1}`,
          cityId: bishkek.id,
          countryId: kg.id,
          isPickupPoint: true,
          lat: 42.88,
          lng: 74.6,
        },
        now,
      )
    ).id;
    const party = (phone: string, name: string) => ({
      name,
      phone,
      address: 'Chui 1',
      country: kg.id,
      city: bishkek.id,
    });
    const create = async (body: Record<string, unknown>, idem: string) => {
      const res = await cloud.request('POST', '/api/v1/integrations/market-company/parcel/create', {
        headers: { 'x-api-token': market.key, 'Idempotency-Key': idem },
        body,
      });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const pickup = await create(
      {
        deliveryMethod: 'PICKUP',
        warehouseId: market.pickupPoint,
        weight: 1,
        currency: 'KGS',
        trackCode: `ISO-MARKET-${n + 1}`,
        receiver: party(`+99670000010${n}`, 'Receiver'),
        sender: party(`+86139000000${n}0`, 'Sender'),
      },
      `iso-pickup-${n}`,
    );
    market.trackCode = pickup.trackCode ?? pickup.parcel?.trackCode;
    const viaLocker = await create(
      {
        deliveryMethod: 'POSTOMAT',
        postomatId: locker.id,
        createPostomatOrder: true,
        weight: 0.5,
        currency: 'KGS',
        trackCode: `ISO-LOCKER-${n + 1}`,
        receiver: party(`+99670000020${n}`, 'Receiver'),
        sender: party(`+86139000000${n}0`, 'Sender'),
      },
      `iso-locker-${n}`,
    );
    market.lockerParcelTrackCode = viaLocker.parcel.trackCode;
    market.marketLockerOrder = viaLocker.postomatOrder.id;

    await make(`Courier ${n + 1}`, 'COURIER');
  }
  return { locker, lockerTenants, tenants, kg, bishkek };
}

export type IsolationWorld = Awaited<ReturnType<typeof seedIsolationWorld>>;
