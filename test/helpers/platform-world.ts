/**
 * A small platform world built through the platform services: countries and cities, cargo and
 * delivery types, a logistics company with code names, a second one, a warehouse company that
 * works with the first, a marketplace with locker access, warehouses and pickup points,
 * clients, a supplier and users. Tests add the parcels and cargo they need.
 */
import type { Db } from '../../cloud/storage/database.ts';
import { createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPlatformCity, createPlatformCountry } from '../../cloud/services/platform/directories.ts';
import { createCargoType, createDeliveryType } from '../../cloud/services/platform/cargo-types.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createPlatformUser } from '../../cloud/services/platform/users.ts';
import { createPlatformApiKey } from '../../cloud/services/platform/api-keys.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { createClient, createSupplier } from '../../cloud/services/platform/clients.ts';

export const PASSWORD = 'correct horse battery';

export async function seedPlatformWorld(db: Db, now = new Date()) {
  const kg = await createPlatformCountry(db, { title: 'Kyrgyzstan', titleEN: 'Kyrgyzstan' }, now);
  const cn = await createPlatformCountry(db, { title: 'China' }, now);
  const bishkek = await createPlatformCity(db, { countryId: kg.id, title: 'Bishkek', lat: 42.87, lng: 74.59 }, now);
  const osh = await createPlatformCity(db, { countryId: kg.id, title: 'Osh' }, now);
  const urumqi = await createPlatformCity(db, { countryId: cn.id, title: 'Urumqi' }, now);

  const air = await createDeliveryType(db, 'Air', now);
  const road = await createDeliveryType(db, 'Road', now);
  const cargoType = await createCargoType(
    db,
    { title: 'Cargo', titleEN: 'Cargo', type: 'CARGO', isParent: true, deliveryTypeIds: [air.id, road.id] },
    now,
  );
  const carType = await createCargoType(db, { title: 'Car', type: 'CAR', deliveryTypeIds: [road.id] }, now);
  const packageType = await createCargoType(db, { title: 'Package', type: 'PACKAGE', deliveryTypeIds: [air.id] }, now);

  const logist = await createPlatformCompany(
    db,
    {
      title: 'Silk Road Logistics',
      type: 'LOGIST',
      isIntercity: true,
      isInternational: true,
      countryId: kg.id,
      cityId: bishkek.id,
      codes: [
        { title: 'SRL', cargoTypeId: cargoType.id },
        { title: 'SRLA', cargoTypeId: carType.id },
      ],
      deliveryTypeIds: [air.id, road.id],
    },
    now,
  );
  const otherLogist = await createPlatformCompany(
    db,
    {
      title: 'Osh Express',
      type: 'LOGIST',
      isCleaning: true,
      cityId: osh.id,
      codes: [{ title: 'OSX', cargoTypeId: packageType.id }],
    },
    now,
  );
  const warehouseCo = await createPlatformCompany(
    db,
    { title: 'Bishkek Storage', type: 'WAREHOUSE', cityId: bishkek.id, partnerIds: [logist.id] },
    now,
  );
  const lockerCompany = await createLockerCompany(db, { title: 'Market Lockers', balance: 1_000_000 }, now);
  const market = await createPlatformCompany(
    db,
    {
      title: 'Bazaar Online',
      type: 'MARKETPLACE',
      partnerIds: [logist.id],
      lockerCompanyId: lockerCompany.id,
      lockerAccess: true,
    },
    now,
  );
  const courier = await createPlatformCompany(db, { title: 'Door to Door', type: 'COURIER', cityId: bishkek.id }, now);

  const store = await createWarehouse(db, { companyId: logist.id, title: 'Urumqi hub', cityId: urumqi.id }, now);
  const depot = await createWarehouse(
    db,
    { companyId: logist.id, title: 'Bishkek depot', cityId: bishkek.id, lat: 42.88, lng: 74.6 },
    now,
  );
  const pvz = await createWarehouse(
    db,
    {
      companyId: market.id,
      title: 'Pickup Dordoi',
      titleEN: 'Pickup Dordoi',
      cityId: bishkek.id,
      lat: 42.9,
      lng: 74.62,
      isPickupPoint: true,
      schedules: [{ day: 'MON', open: '09:00', close: '20:00' }],
    },
    now,
  );

  const aibek = await createClient(
    db,
    {
      companyId: logist.id,
      name: 'Aibek',
      phone: '+996555000001',
      cityId: bishkek.id,
      deliveryWarehouseCompanyId: warehouseCo.id,
    },
    now,
  );
  const bermet = await createClient(
    db,
    { companyId: logist.id, name: 'Bermet', phone: '+996555000002', cityId: osh.id },
    now,
  );
  const stranger = await createClient(db, { companyId: otherLogist.id, name: 'Stranger', phone: '+996555000003' }, now);
  const supplier = await createSupplier(
    db,
    { companyId: logist.id, name: 'Yiwu Toys', phone: '+8613800000000', cityId: urumqi.id },
    now,
  );

  const admin = await createPlatformUser(
    db,
    { email: 'Admin@SilkRoad.example', password: PASSWORD, role: 'ADMIN', companyId: logist.id },
    now,
  );
  const user = await createPlatformUser(
    db,
    { email: 'clerk@silkroad.example', password: PASSWORD, companyId: logist.id },
    now,
  );
  const storeKeeper = await createPlatformUser(
    db,
    { email: 'keeper@storage.example', password: PASSWORD, companyId: warehouseCo.id },
    now,
  );
  const otherAdmin = await createPlatformUser(
    db,
    { email: 'admin@osh.example', password: PASSWORD, role: 'ADMIN', companyId: otherLogist.id },
    now,
  );

  const keys = {
    logist: await createPlatformApiKey(db, logist.id, 'main', now),
    otherLogist: await createPlatformApiKey(db, otherLogist.id, 'main', now),
    warehouse: await createPlatformApiKey(db, warehouseCo.id, 'main', now),
    market: await createPlatformApiKey(db, market.id, 'main', now),
    courier: await createPlatformApiKey(db, courier.id, 'main', now),
  };

  return {
    kg,
    cn,
    bishkek,
    osh,
    urumqi,
    air,
    road,
    cargoType,
    carType,
    packageType,
    logist,
    otherLogist,
    warehouseCo,
    market,
    courier,
    lockerCompany,
    store,
    depot,
    pvz,
    aibek,
    bermet,
    stranger,
    supplier,
    admin,
    user,
    storeKeeper,
    otherAdmin,
    keys,
  };
}

export type PlatformWorld = Awaited<ReturnType<typeof seedPlatformWorld>>;
