/**
 * Bulk seeding for the platform benchmark: 100,000 clients over five logistics companies and
 * 1,000,000 parcels with their status history and payment orders. The companies, places and
 * the first parcels go through the platform services; the rest is written straight through
 * better-sqlite3 in large transactions (the services would take hours), as platform-plan.ts
 * computes it with the same domain rules (clients likewise: the first through the services).
 * The FTS rows are written by the triggers of migrations 009 and 010 in both cases. The straight
 * rows are checked against what the services wrote for the first clients and parcels, and the
 * search indexes (parcels, cargo, clients) are compacted as the operator does after a bulk import.
 */
import assert from 'node:assert/strict';
import SQLite from 'better-sqlite3';
import { openStorage } from '../../cloud/storage/database.ts';
import { optimizeSearchIndexes } from '../../cloud/storage/search-maintenance.ts';
import { createPlatformCity, createPlatformCountry } from '../../cloud/services/platform/directories.ts';
import { createCargoType } from '../../cloud/services/platform/cargo-types.ts';
import { createPlatformCompany } from '../../cloud/services/platform/companies.ts';
import { createPlatformApiKey } from '../../cloud/services/platform/api-keys.ts';
import { createClient } from '../../cloud/services/platform/clients.ts';
import { clientSearchText } from '../../cloud/domain/platform/search-text.ts';
import { createWarehouse } from '../../cloud/services/platform/warehouses.ts';
import { changeParcelStatus, createParcel } from '../../cloud/services/platform/parcels.ts';
import { createPaymentOrder } from '../../cloud/services/platform/payment-orders.ts';
import {
  PARCEL_DEFAULTS,
  clientName,
  clientPhone,
  parcelPlan,
  platformRows,
  type BenchClient,
  type ParcelPlan,
  type PlanWorld,
} from './platform-plan.ts';

export interface PlatformSeed {
  apiKey: string;
  codeName: string;
  /** clients of the measured company, for search strings */
  sampleClients: BenchClient[];
  /** track codes of the measured company's parcels */
  sampleTrackCodes: string[];
}

/** Parcels written through the services, to check the straight writes against. */
const VERIFIED = 60;
const BATCH = 50_000;

export async function seedPlatformBench(
  file: string,
  opts: { clients: number; parcels: number; progress: (line: string) => void },
): Promise<PlatformSeed> {
  const at = new Date('2026-01-15T10:00:00.000Z');
  const iso = at.toISOString();
  const storage = await openStorage(file);
  const db = storage.db;
  const kg = await createPlatformCountry(db, { title: 'Kyrgyzstan' }, at);
  const cn = await createPlatformCountry(db, { title: 'China' }, at);
  const bishkek = await createPlatformCity(db, { countryId: kg.id, title: 'Bishkek' }, at);
  const urumqi = await createPlatformCity(db, { countryId: cn.id, title: 'Urumqi' }, at);
  const cargo = await createCargoType(db, { title: 'Cargo', type: 'CARGO' }, at);
  const pack = await createCargoType(db, { title: 'Package', type: 'PACKAGE' }, at);
  const names = [
    ['SRL', 'SRLP'],
    ['OSX', 'OSXP'],
    ['TST', 'TSTP'],
    ['KGX', 'KGXP'],
    ['ALA', 'ALAP'],
  ];
  const companies: Array<Awaited<ReturnType<typeof createPlatformCompany>>> = [];
  for (const [i, [c, p]] of names.entries()) {
    companies.push(
      await createPlatformCompany(
        db,
        {
          title: `Logistics ${c}`,
          type: 'LOGIST',
          codes: [
            { title: c, cargoTypeId: cargo.id },
            { title: p, cargoTypeId: pack.id },
          ],
          cityId: i ? urumqi.id : bishkek.id,
        },
        at,
      ),
    );
  }
  const market = await createPlatformCompany(
    db,
    { title: 'Bazaar Online', type: 'MARKETPLACE', partnerIds: [companies[0].id] },
    at,
  );
  const hub = await createWarehouse(db, { companyId: companies[0].id, title: 'Urumqi hub', cityId: urumqi.id }, at);
  const depot = await createWarehouse(
    db,
    { companyId: companies[0].id, title: 'Bishkek depot', cityId: bishkek.id },
    at,
  );
  const pvz = await createWarehouse(
    db,
    { companyId: market.id, title: 'Pickup Dordoi', cityId: bishkek.id, isPickupPoint: true },
    at,
  );
  const { key } = await createPlatformApiKey(db, companies[0].id, 'bench', at);

  // 60% of the clients (and so of the parcels) belong to the measured company, the rest to four others.
  const mainShare = Math.round(opts.clients * 0.6);
  const clients = (i: number): BenchClient => {
    const n = i % opts.clients;
    const k = n < mainShare ? 0 : 1 + ((n - mainShare) % 4);
    const code = k === 0 ? n + 1 : Math.floor((n - mainShare) / 4) + 1;
    return { id: n + 1, companyId: companies[k].id, code, name: clientName(n), phone: clientPhone(n) };
  };
  const codes = new Map<number, Array<{ title: string; cargoTypeId: number }>>();
  for (const c of companies)
    codes.set(
      c.id,
      await db
        .selectFrom('company_code')
        .select(['title', 'cargoTypeId'])
        .where('companyId', '=', c.id)
        .orderBy('id')
        .execute(),
    );
  const world: PlanWorld = {
    logistCompanyOf: (c) => c.companyId,
    places: {
      hub: { id: hub.id, isPickupPoint: false },
      depot: { id: depot.id, isPickupPoint: false },
      pvz: { id: pvz.id, isPickupPoint: true },
    },
    codesOf: (companyId) => codes.get(companyId)!,
    receiptCityId: urumqi.id,
    deliveryCityId: bishkek.id,
  };
  const plan = (i: number) => parcelPlan(i, clients, [cargo.id, pack.id]);

  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = OFF');
  const insert = (table: string, columns: string[]) =>
    sqlite.prepare(
      `insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`,
    );

  // One prepared insert per table, its columns those of the first row written (all rows of a table have the same keys).
  const statements = new Map<string, SQLite.Statement>();
  const put = (table: string, row: Record<string, unknown>) => {
    let stmt = statements.get(table);
    if (!stmt) statements.set(table, (stmt = insert(table, Object.keys(row))));
    stmt.run(row);
  };
  const next = (table: string) =>
    Number((sqlite.prepare(`select coalesce(max(id), 0) + 1 as n from ${table}`).get() as { n: number }).n);

  const clientRow = (c: BenchClient) => ({
    ...c,
    searchText: clientSearchText(c),
    address: null,
    isActive: 1,
    countryId: kg.id,
    cityId: bishkek.id,
    deliveryWarehouseCompanyId: null,
    createdAt: iso,
    updatedAt: iso,
  });
  // The first clients through the services too, the rest straight; checked below like the parcels.
  const viaServiceClients = Math.min(VERIFIED, opts.clients);
  for (let n = 0; n < viaServiceClients; n++) {
    const c = clients(n);
    await createClient(
      db,
      { companyId: c.companyId, code: c.code, name: c.name, phone: c.phone, countryId: kg.id, cityId: bishkek.id },
      at,
    );
  }
  sqlite.transaction(() => {
    for (let n = viaServiceClients; n < opts.clients; n++) put('platform_client', clientRow(clients(n)));
    for (const c of companies)
      sqlite
        .prepare(
          'update platform_company set "lastClientCode" = (select max(code) from platform_client where "companyId" = ?) where id = ?',
        )
        .run(c.id, c.id);
  })();
  for (let n = 0; n < viaServiceClients; n++) {
    assert.deepEqual(
      sqlite.prepare('select * from platform_client where id = ?').get(n + 1),
      clientRow(clients(n)),
      `client ${n + 1}`,
    );
  }
  opts.progress(
    `seeded ${opts.clients.toLocaleString('en')} clients (the first ${viaServiceClients} through the services, matching the straight rows)`,
  );

  // The first parcels through the services, exactly as warehouse staff would move them.
  for (let i = 0; i < VERIFIED; i++) await viaServices(db, plan(i), world, at);
  await storage.close();
  verify(sqlite, plan, world, iso);
  opts.progress(`${VERIFIED} parcels written by the services match the straight rows`);

  let statusId = next('parcel_status');
  let orderId = next('payment_order');
  for (let from = VERIFIED; from < opts.parcels; from += BATCH) {
    sqlite.transaction(() => {
      for (let i = from; i < Math.min(opts.parcels, from + BATCH); i++) {
        const rows = platformRows(plan(i), world, iso);
        const paymentOrderId = rows.order ? orderId++ : null;
        if (rows.order) put('payment_order', { id: paymentOrderId, ...rows.order });
        const firstStatus = statusId;
        statusId += rows.statuses.length;
        put('parcel', { id: i + 1, paymentOrderId, currentStatusId: statusId - 1, ...rows.parcel });
        rows.statuses.forEach((s, k) => put('parcel_status', { id: firstStatus + k, parcelId: i + 1, ...s }));
      }
    })();
    opts.progress(
      `seeded ${Math.min(opts.parcels, from + BATCH).toLocaleString('en')} / ${opts.parcels.toLocaleString('en')} parcels`,
    );
  }
  sqlite.exec('analyze');
  sqlite.close();
  // What the operator does after a bulk import (npm run operator -- search optimize).
  const after = await openStorage(file);
  const compacted = await optimizeSearchIndexes(after.db, 'sqlite');
  await after.close();
  opts.progress(
    `search indexes compacted as after a bulk import (${compacted.map((c) => `${c.index} ${c.ms} ms`).join(', ')})`,
  );

  const mainClients = Array.from({ length: 500 }, (_, k) => clients(Math.floor((k * mainShare) / 500)));
  const sampleTrackCodes: string[] = [];
  for (let i = opts.parcels - 1; sampleTrackCodes.length < 500 && i >= 0; i -= 97) {
    const p = plan(i);
    if (p.client.companyId === companies[0].id) sampleTrackCodes.push(p.trackCode);
  }
  return { apiKey: key, codeName: 'SRL', sampleClients: mainClients, sampleTrackCodes };
}

async function viaServices(db: Parameters<typeof createParcel>[0], plan: ParcelPlan, w: PlanWorld, at: Date) {
  const place = (p: keyof PlanWorld['places'] | null) => (p === null ? null : w.places[p].id);
  let p = await createParcel(
    db,
    {
      companyId: w.logistCompanyOf(plan.client),
      trackCode: plan.trackCode,
      description: plan.description,
      ...PARCEL_DEFAULTS,
      deliveryMethod: plan.method,
      clientId: plan.client.id,
      cargoTypeId: plan.cargoTypeId,
      deliveryWarehouseId: place(plan.to),
      receiptCityId: w.receiptCityId,
      deliveryCityId: w.deliveryCityId,
    },
    at,
  );
  for (const [to, where, destination] of plan.steps)
    p = await changeParcelStatus(
      db,
      { parcelId: p.id, to, warehouseId: place(where), destinationWarehouseId: place(destination) },
      at,
    );
  if (plan.pay) {
    await createPaymentOrder(
      db,
      {
        companyId: w.logistCompanyOf(plan.client),
        clientId: plan.client.id,
        amount: PARCEL_DEFAULTS.price,
        currency: PARCEL_DEFAULTS.currency,
        isPaid: plan.pay === 'paid',
        parcelIds: [p.id],
      },
      at,
    );
  }
}

/** The rows the services wrote for the first parcels equal the straight rows of their plans. */
function verify(sqlite: SQLite.Database, plan: (i: number) => ParcelPlan, w: PlanWorld, iso: string) {
  const without = <T extends Record<string, unknown>>(row: T, ...keys: string[]) =>
    Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));
  for (let i = 0; i < VERIFIED; i++) {
    const want = platformRows(plan(i), w, iso);
    const row = sqlite.prepare('select * from parcel where id = ?').get(i + 1) as Record<string, unknown>;
    assert.deepEqual(without(row, 'id', 'paymentOrderId', 'currentStatusId'), want.parcel, `parcel ${i + 1}`);
    const statuses = sqlite.prepare('select * from parcel_status where "parcelId" = ? order by id').all(i + 1) as Array<
      Record<string, unknown>
    >;
    assert.deepEqual(
      statuses.map((s) => without(s, 'id', 'parcelId')),
      want.statuses,
      `statuses of parcel ${i + 1}`,
    );
    assert.equal(row.currentStatusId, statuses.at(-1)!.id);
    const order =
      row.paymentOrderId === null
        ? null
        : without(
            sqlite.prepare('select * from payment_order where id = ?').get(row.paymentOrderId) as Record<
              string,
              unknown
            >,
            'id',
          );
    assert.deepEqual(order, want.order, `payment order of parcel ${i + 1}`);
  }
}
