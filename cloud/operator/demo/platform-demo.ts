/**
 * The platform half of the demo dataset, built through the platform services so every
 * denormalised column is what the API will see. Companies are created first, in a fixed order,
 * so that in a fresh database the logistics company is 1 and the pickup points are 1 and 2.
 * Parcels and cargo walk through the staff transitions to spread over every status, with paid
 * and unpaid payment orders, so that every list filter of the spec selects something.
 */
import type { Db } from '../../storage/database.ts';
import { rowCount } from '../../storage/row-counts.ts';
import type { Clock } from '../../../shared/clock.ts';
import { newPassword } from '../../domain/secrets.ts';
import type { CargoStatus, DeliveryMethod, ParcelStatus } from '../../domain/platform/enums.ts';
import { OperatorError } from '../command.ts';
import { createPlatformCity, createPlatformCountry } from '../../services/platform/directories.ts';
import { createCargoType, createDeliveryType } from '../../services/platform/cargo-types.ts';
import { createPlatformCompany } from '../../services/platform/companies.ts';
import { createPlatformUser } from '../../services/platform/users.ts';
import { createPlatformApiKey } from '../../services/platform/api-keys.ts';
import { createWarehouse } from '../../services/platform/warehouses.ts';
import { createClient, createSupplier } from '../../services/platform/clients.ts';
import { changeParcelStatus, createParcel } from '../../services/platform/parcels.ts';
import { changeCargoStatus, createCargo } from '../../services/platform/cargo.ts';
import { createPaymentOrder } from '../../services/platform/payment-orders.ts';
import type { LockerDemo } from './locker-demo.ts';
import { CARGO_PLAN, CLIENTS, PARCEL_PLAN, type Place } from './platform-demo-plan.ts';

interface Login {
  email: string;
  password: string;
}

/** `title` came later: a demo.json written before it has none. */
interface DemoCompany {
  companyId: number;
  title?: string;
  apiKey: string;
}

export interface PlatformDemo {
  logist: DemoCompany & { admin: Login; user: Login; lockerCompanyId: string };
  otherLogist: DemoCompany & { admin: Login };
  warehouse: DemoCompany & { user: Login };
  market: DemoCompany & { lockerCompanyId: string };
  noLockerAccess: DemoCompany;
  courier: DemoCompany;
  pickupPointIds: number[];
  warehouseIds: { hub: number; depot: number; storage: number };
  clients: Array<{ id: number; code: number; codeName: string; phone: string; companyId: number }>;
  supplier: { id: number; phone: string; companyId: number };
  parcels: Array<{
    id: number;
    trackCode: string;
    status: ParcelStatus;
    clientCode: number | null;
    isPaid: boolean | null;
  }>;
  cargo: Array<{ id: number; status: CargoStatus; kind: string }>;
}

export async function seedPlatformDemo(
  db: Db,
  clock: Clock,
  locker: LockerDemo,
  progress: (line: string) => void,
): Promise<PlatformDemo> {
  await refuseIfNotEmpty(db);
  const now = clock.now();
  const password = () => newPassword(12);

  const kg = await createPlatformCountry(
    db,
    { title: 'Kyrgyzstan', titleRU: 'Кыргызстан', titleEN: 'Kyrgyzstan', titleKY: 'Кыргызстан' },
    now,
  );
  const cn = await createPlatformCountry(
    db,
    { title: 'China', titleRU: 'Китай', titleCN: '中国', titleEN: 'China' },
    now,
  );
  const bishkek = await createPlatformCity(db, { countryId: kg.id, title: 'Bishkek', lat: 42.8746, lng: 74.5698 }, now);
  const osh = await createPlatformCity(db, { countryId: kg.id, title: 'Osh', lat: 40.5283, lng: 72.7985 }, now);
  const urumqi = await createPlatformCity(db, { countryId: cn.id, title: 'Urumqi', titleCN: '乌鲁木齐' }, now);
  await createPlatformCity(db, { countryId: kg.id, title: 'Karakol', isActive: false }, now);

  const [air, road, rail] = [
    await createDeliveryType(db, 'Air', now),
    await createDeliveryType(db, 'Road', now),
    await createDeliveryType(db, 'Rail', now),
  ];
  const kinds = {
    CARGO: await createCargoType(
      db,
      {
        title: 'Cargo',
        titleRU: 'Груз',
        titleEN: 'Cargo',
        titleCN: '货物',
        titleKY: 'Жүк',
        type: 'CARGO',
        isParent: true,
        deliveryTypeIds: [air.id, road.id, rail.id],
      },
      now,
    ),
    CAR: await createCargoType(
      db,
      { title: 'Car', titleRU: 'Автомобиль', titleEN: 'Car', type: 'CAR', deliveryTypeIds: [road.id, rail.id] },
      now,
    ),
    PACKAGE: await createCargoType(
      db,
      { title: 'Package', titleRU: 'Посылка', titleEN: 'Package', type: 'PACKAGE', deliveryTypeIds: [air.id, road.id] },
      now,
    ),
    FREIGHT: await createCargoType(
      db,
      { title: 'Freight', titleRU: 'Фура', titleEN: 'Freight', type: 'FREIGHT', deliveryTypeIds: [road.id] },
      now,
    ),
  };
  await createCargoType(
    db,
    { title: 'Clothes', type: 'CARGO', parentId: kinds.CARGO.id, deliveryTypeIds: [air.id] },
    now,
  );
  await createCargoType(db, { title: 'Documents (retired)', type: 'PACKAGE', isActive: false }, now);

  const [expressCourier, greenMarket] = locker.companies;
  const logist = await createPlatformCompany(
    db,
    {
      title: 'Silk Road Logistics',
      type: 'LOGIST',
      isIntercity: true,
      isInternational: true,
      countryId: kg.id,
      cityId: bishkek.id,
      phone: '+996312000001',
      email: 'office@silkroad.example',
      codes: [
        { title: 'SRL', cargoTypeId: kinds.CARGO.id },
        { title: 'SRLA', cargoTypeId: kinds.CAR.id },
        { title: 'SRLP', cargoTypeId: kinds.PACKAGE.id },
        { title: 'SRLF', cargoTypeId: kinds.FREIGHT.id },
      ],
      deliveryTypeIds: [air.id, road.id],
      lockerCompanyId: expressCourier.id,
      lockerAccess: true,
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
      codes: [{ title: 'OSX', cargoTypeId: kinds.PACKAGE.id }],
      deliveryTypeIds: [road.id],
    },
    now,
  );
  await createPlatformCompany(
    db,
    {
      title: 'Tian Shan Trans',
      type: 'LOGIST',
      isInternational: true,
      cityId: urumqi.id,
      codes: [{ title: 'TST', cargoTypeId: kinds.FREIGHT.id }],
      deliveryTypeIds: [rail.id],
    },
    now,
  );
  await createPlatformCompany(
    db,
    {
      title: 'Closed Cargo (inactive)',
      type: 'LOGIST',
      isActive: false,
      isIntercity: true,
      codes: [{ title: 'CLO', cargoTypeId: kinds.CARGO.id }],
    },
    now,
  );
  const storageCo = await createPlatformCompany(
    db,
    { title: 'Bishkek Storage', type: 'WAREHOUSE', cityId: bishkek.id, partnerIds: [logist.id, otherLogist.id] },
    now,
  );
  const market = await createPlatformCompany(
    db,
    {
      title: 'Bazaar Online',
      type: 'MARKETPLACE',
      cityId: bishkek.id,
      partnerIds: [logist.id],
      lockerCompanyId: greenMarket.id,
      lockerAccess: true,
    },
    now,
  );
  const noAccess = await createPlatformCompany(
    db,
    { title: 'Quick Shop', type: 'MARKETPLACE', cityId: osh.id, partnerIds: [logist.id] },
    now,
  );
  const courier = await createPlatformCompany(
    db,
    { title: 'Door to Door', type: 'COURIER', cityId: bishkek.id, deliveryTypeIds: [road.id] },
    now,
  );
  progress('platform: countries, cargo types, 8 companies');

  const schedules = [
    { day: 'MON-FRI', open: '09:00', close: '20:00' },
    { day: 'SAT-SUN', open: '10:00', close: '18:00' },
  ];
  const pvz1 = await createWarehouse(
    db,
    {
      companyId: market.id,
      title: 'Pickup Dordoi',
      titleCN: '多尔多伊取货点',
      titleEN: 'Pickup Dordoi',
      titleKY: 'Дордой алуу пункту',
      address: 'Dordoi Bazaar, row 12',
      lat: 42.9391,
      lng: 74.6201,
      schedule: '09:00-20:00',
      schedules,
      cityId: bishkek.id,
      isPickupPoint: true,
    },
    now,
  );
  const pvz2 = await createWarehouse(
    db,
    {
      companyId: market.id,
      title: 'Pickup Osh Bazaar',
      titleEN: 'Pickup Osh Bazaar',
      address: 'Alisher Navoi St 62',
      lat: 40.5283,
      lng: 72.7985,
      schedule: '08:00-19:00',
      schedules,
      cityId: osh.id,
      isPickupPoint: true,
    },
    now,
  );
  const hub = await createWarehouse(
    db,
    { companyId: logist.id, title: 'Urumqi hub', address: 'Kashgar Rd 8', cityId: urumqi.id },
    now,
  );
  const depot = await createWarehouse(
    db,
    {
      companyId: logist.id,
      title: 'Bishkek depot',
      address: 'Jibek Jolu 500',
      lat: 42.8855,
      lng: 74.6275,
      cityId: bishkek.id,
    },
    now,
  );
  const storage = await createWarehouse(
    db,
    {
      companyId: storageCo.id,
      title: 'Bishkek Storage main',
      address: 'Ibraimov St 29',
      lat: 42.8701,
      lng: 74.6122,
      cityId: bishkek.id,
    },
    now,
  );
  await createWarehouse(
    db,
    {
      companyId: market.id,
      title: 'Pickup Karakol (no coordinates)',
      schedule: '10:00-18:00',
      cityId: bishkek.id,
      isPickupPoint: true,
    },
    now,
  );
  await createWarehouse(
    db,
    {
      companyId: market.id,
      title: 'Pickup Alamedin (closed)',
      lat: 42.86,
      lng: 74.65,
      cityId: bishkek.id,
      isPickupPoint: true,
      isActive: false,
    },
    now,
  );
  const places: Record<Place, number> = {
    pvz1: pvz1.id,
    pvz2: pvz2.id,
    hub: hub.id,
    depot: depot.id,
    storage: storage.id,
  };

  const clients = [];
  for (const c of CLIENTS) {
    const companyId = c.company === 'logist' ? logist.id : otherLogist.id;
    const row = await createClient(
      db,
      {
        companyId,
        name: c.name,
        phone: c.phone,
        cityId: c.city === 'osh' ? osh.id : bishkek.id,
        address: c.address,
        deliveryWarehouseCompanyId: c.viaStorage ? storageCo.id : null,
      },
      now,
    );
    clients.push({
      id: row.id,
      code: row.code,
      codeName: c.company === 'logist' ? 'SRL' : 'OSX',
      phone: c.phone,
      companyId,
    });
  }
  const supplier = await createSupplier(
    db,
    {
      companyId: logist.id,
      name: 'Yiwu Toys Co',
      phone: '+8613800000001',
      cityId: urumqi.id,
      address: 'Futian Market, Yiwu',
    },
    now,
  );
  await createSupplier(
    db,
    { companyId: logist.id, name: 'Guangzhou Textile', phone: '+8613800000002', cityId: urumqi.id },
    now,
  );
  await createSupplier(db, { companyId: otherLogist.id, name: 'Kashgar Dried Fruit', phone: '+8613800000003' }, now);

  const logins = {
    admin: { email: 'admin@silkroad.example', password: password() },
    user: { email: 'clerk@silkroad.example', password: password() },
    other: { email: 'admin@oshexpress.example', password: password() },
    keeper: { email: 'keeper@bishkekstorage.example', password: password() },
  };
  await createPlatformUser(
    db,
    { ...logins.admin, role: 'ADMIN', companyId: logist.id, name: 'Aida (administrator)' },
    now,
  );
  const clerk = await createPlatformUser(
    db,
    { ...logins.user, companyId: logist.id, name: 'Bakyt (warehouse clerk)' },
    now,
  );
  await createPlatformUser(db, { ...logins.other, role: 'ADMIN', companyId: otherLogist.id }, now);
  const keeper = await createPlatformUser(
    db,
    { ...logins.keeper, companyId: storageCo.id, name: 'Chynara (storekeeper)' },
    now,
  );
  const key = async (companyId: number) => (await createPlatformApiKey(db, companyId, 'demo', now)).key;
  const keys = {
    logist: await key(logist.id),
    other: await key(otherLogist.id),
    storage: await key(storageCo.id),
    market: await key(market.id),
    noAccess: await key(noAccess.id),
    courier: await key(courier.id),
  };
  progress(`platform: ${clients.length} clients, 4 users, 6 API keys, 7 warehouses`);

  const lockerId = locker.postomats[0].id;
  const parcels: PlatformDemo['parcels'] = [];
  for (const [i, plan] of PARCEL_PLAN.entries()) {
    const client = clients[plan.client];
    const companyId = client.companyId;
    const method: DeliveryMethod = plan.method;
    let p = await createParcel(
      db,
      {
        companyId,
        trackCode: `PLDEMO${String(i + 1).padStart(6, '0')}`,
        description: plan.description,
        weight: plan.weight,
        price: plan.price,
        currency: 'KGS',
        deliveryMethod: method,
        postomatId: method === 'POSTOMAT' ? lockerId : null,
        clientId: client.id,
        supplierId: plan.supplier && companyId === logist.id ? supplier.id : null,
        partnerCompanyId: plan.market ? market.id : null,
        cargoTypeId: kinds[plan.kind].id,
        deliveryWarehouseId: plan.to ? places[plan.to] : null,
        receiptCityId: urumqi.id,
        deliveryCityId: plan.to === 'pvz2' ? osh.id : bishkek.id,
        userId: companyId === logist.id ? clerk.id : null,
      },
      now,
    );
    for (const [to, where, destination] of plan.steps) {
      const staff = where === 'storage' || where === 'pvz1' || where === 'pvz2' ? keeper.id : clerk.id;
      p = await changeParcelStatus(
        db,
        {
          parcelId: p.id,
          to,
          warehouseId: where ? places[where] : null,
          destinationWarehouseId: destination ? places[destination] : null,
          userId: companyId === logist.id ? staff : null,
        },
        now,
      );
    }
    if (plan.payment)
      await createPaymentOrder(
        db,
        {
          companyId,
          clientId: client.id,
          amount: plan.price,
          currency: 'KGS',
          isPaid: plan.payment === 'paid',
          parcelIds: [p.id],
        },
        now,
      );
    parcels.push({
      id: p.id,
      trackCode: p.trackCode,
      status: p.status,
      clientCode: client.code,
      isPaid: plan.payment ? plan.payment === 'paid' : null,
    });
  }

  const cargo: PlatformDemo['cargo'] = [];
  for (const [i, plan] of CARGO_PLAN.entries()) {
    const client = clients[plan.client];
    let c = await createCargo(
      db,
      {
        companyId: logist.id,
        warehouseId: places[plan.from],
        trackCode: `CGDEMO${String(i + 1).padStart(6, '0')}`,
        tractorNumber: plan.tractor,
        description: plan.description,
        weight: plan.weight,
        price: plan.price,
        currency: 'USD',
        clientId: client.id,
        supplierId: supplier.id,
        cargoTypeId: kinds[plan.kind].id,
        deliveryWarehouseId: places[plan.to],
        receiptCityId: urumqi.id,
        deliveryCityId: bishkek.id,
        userId: clerk.id,
      },
      now,
    );
    for (const [to, where] of plan.steps)
      c = await changeCargoStatus(
        db,
        { cargoId: c.id, to, warehouseId: where ? places[where] : null, userId: clerk.id },
        now,
      );
    if (plan.payment)
      await createPaymentOrder(
        db,
        {
          companyId: logist.id,
          clientId: client.id,
          amount: plan.price,
          currency: 'USD',
          isPaid: plan.payment === 'paid',
          cargoIds: [c.id],
        },
        now,
      );
    cargo.push({ id: c.id, status: c.status, kind: plan.kind });
  }
  progress(`platform: ${parcels.length} parcels, ${cargo.length} cargo items over every status`);

  return {
    logist: {
      companyId: logist.id,
      title: logist.title,
      apiKey: keys.logist,
      admin: logins.admin,
      user: logins.user,
      lockerCompanyId: expressCourier.id,
    },
    otherLogist: { companyId: otherLogist.id, title: otherLogist.title, apiKey: keys.other, admin: logins.other },
    warehouse: { companyId: storageCo.id, title: storageCo.title, apiKey: keys.storage, user: logins.keeper },
    market: { companyId: market.id, title: market.title, apiKey: keys.market, lockerCompanyId: greenMarket.id },
    noLockerAccess: { companyId: noAccess.id, title: noAccess.title, apiKey: keys.noAccess },
    courier: { companyId: courier.id, title: courier.title, apiKey: keys.courier },
    pickupPointIds: [pvz1.id, pvz2.id],
    warehouseIds: { hub: hub.id, depot: depot.id, storage: storage.id },
    clients,
    supplier: { id: supplier.id, phone: supplier.phone, companyId: logist.id },
    parcels,
    cargo,
  };
}

async function refuseIfNotEmpty(db: Db) {
  const n = await rowCount(db, 'platform_company');
  if (n > 0) throw new OperatorError(`seed-demo fills an empty database only; this one has ${n} platform companies`);
}
