/**
 * Large locker worlds for the large-list tests, written with multi-row inserts in big chunks
 * (the services' one-row path would take minutes for 10,000 lockers). The rows are what the
 * services write; the order counters are recomputed from the orders at the end.
 */
import { sql } from 'kysely';
import type { Db } from '../../cloud/storage/database.ts';
import type { Database } from '../../cloud/storage/schema.ts';
import { newId } from '../../cloud/storage/ids.ts';

/** Rows per INSERT: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters at 12 columns. */
const CHUNK = 1000;

async function insertChunked<T extends keyof Database>(
  db: Db,
  table: T,
  rows: Array<Record<string, unknown>>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + CHUNK) as any)
      .execute();
}

export interface ManyLockers {
  /** ids in creation order (index i is locker i) */
  ids: string[];
  /** each locker's cell ids by number (index 0 is cell 1) */
  cells: string[][];
  isActive: (i: number) => boolean;
  hasCoordinates: (i: number) => boolean;
  /** cell 8 of these lockers is switched off */
  cellEightOff: (i: number) => boolean;
}

/**
 * `count` lockers with 8 cells each on one board. Titles repeat in pairs, so title order needs
 * the id tie-break; every 100th locker is inactive, every 50th has no coordinates, every third
 * has cell 8 switched off.
 */
export async function seedManyLockers(
  db: Db,
  count: number,
  place: { cityId: string; districtId: string },
  at: string,
): Promise<ManyLockers> {
  const shape = {
    isActive: (i: number) => i % 100 !== 99,
    hasCoordinates: (i: number) => i % 50 !== 49,
    cellEightOff: (i: number) => i % 3 === 0,
  };
  const postomats: Array<Record<string, unknown>> = [];
  const boards: Array<Record<string, unknown>> = [];
  const cellRows: Array<Record<string, unknown>> = [];
  const ids: string[] = [];
  const cells: string[][] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    const located = shape.hasCoordinates(i);
    postomats.push({
      id,
      incrementalid: i + 1,
      title: `Locker ${String(Math.floor(i / 2)).padStart(5, '0')}`,
      address: `Street ${i}`,
      description: null,
      imgUrl: null,
      // Spread over a ~500 km square around Bishkek.
      lat: located ? 40 + ((i * 7919) % 5000) / 1000 : null,
      lng: located ? 71 + ((i * 104729) % 5000) / 1000 : null,
      schedule: null,
      shortId: `L${i.toString(36).toUpperCase().padStart(6, '0')}`,
      isActive: shape.isActive(i) ? 1 : 0,
      isConnected: 0,
      cityId: place.cityId,
      districtId: i % 2 ? place.districtId : null,
      agentSecretHash: null,
      createdAt: at,
      updatedAt: at,
    });
    const boardId = newId();
    boards.push({ id: boardId, postomatId: id, address: 0, title: 'Board 0', createdAt: at, updatedAt: at });
    const own: string[] = [];
    for (let n = 1; n <= 8; n++) {
      const cellId = newId();
      const off = n === 8 && shape.cellEightOff(i);
      cellRows.push({
        id: cellId,
        title: String(n),
        number: n,
        size: n <= 4 ? 'S' : n <= 7 ? 'M' : 'L',
        isActive: off ? 0 : 1,
        isOpen: 0,
        forRentAvailable: 0,
        postomatId: id,
        boardId,
        lock: n,
        createdAt: at,
        updatedAt: at,
      });
      own.push(cellId);
    }
    ids.push(id);
    cells.push(own);
  }
  await insertChunked(db, 'postomat', postomats);
  await insertChunked(db, 'board', boards);
  await insertChunked(db, 'cell', cellRows);
  return { ids, cells, ...shape };
}

export const ORDER_STATUS_CYCLE = ['DELIVERED', 'CREATED', 'COMPLETED', 'SUBTRACTED'] as const;

/**
 * `count` active orders of a company at the given lockers, created three to a second (ties in
 * createdAt go by id). Order i has status ORDER_STATUS_CYCLE[i % 4]; a DELIVERED order holds
 * cell 1 of its locker (locker i % lockers), so that cell is not free. Each order has its
 * CREATED status (and the current one), a DOWN and an UP code, and one of 50 recipients.
 */
export async function seedManyOrders(
  db: Db,
  companyId: string,
  lockers: ManyLockers,
  count: number,
  start: Date,
): Promise<void> {
  const recipients = Array.from({ length: 50 }, (_, i) => ({
    id: newId(),
    phone: `+99670${String(i).padStart(7, '0')}`,
    createdAt: start.toISOString(),
    updatedAt: start.toISOString(),
  }));
  const orders: Array<Record<string, unknown>> = [];
  const statuses: Array<Record<string, unknown>> = [];
  const codes: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    const locker = i % lockers.ids.length;
    const postomatId = lockers.ids[locker];
    const status = ORDER_STATUS_CYCLE[i % 4];
    const created = new Date(start.getTime() + Math.floor(i / 3) * 1000).toISOString();
    const placedAt = new Date(start.getTime() + Math.floor(i / 3) * 1000 + 500).toISOString();
    const createdStatus = { id: newId(), orderId: id, type: 'CREATED', createdAt: created, updatedAt: created };
    statuses.push(createdStatus);
    let currentStatusId = createdStatus.id;
    if (status !== 'CREATED') {
      const s = { id: newId(), orderId: id, type: status, createdAt: placedAt, updatedAt: placedAt };
      statuses.push(s);
      currentStatusId = s.id;
    }
    const paid = i % 3 === 0 ? 10_000 : 0;
    orders.push({
      id,
      postomatId,
      companyId,
      toUserId: recipients[i % recipients.length].id,
      cellId: status === 'CREATED' ? null : lockers.cells[locker][0],
      currentStatusId,
      status,
      days: 3,
      weight: 1.5,
      customData: i % 2 ? `ref-${i}` : null,
      sendMessage: i % 2,
      isActive: 1,
      price: 12_345,
      deliveryPrice: 1_010,
      paidAmount: paid,
      notPaidAmount: 13_355 - paid,
      promoCodeAmount: 0,
      startDateTime: status === 'CREATED' ? null : placedAt,
      endDateTime: status === 'CREATED' ? null : new Date(Date.parse(placedAt) + 3 * 86_400_000).toISOString(),
      createdAt: created,
      updatedAt: created,
    });
    const active = status === 'CREATED' || status === 'DELIVERED' ? 1 : 0;
    codes.push({
      id: newId(),
      orderId: id,
      postomatId,
      type: 'DOWN',
      password: String(i).padStart(6, '0'),
      active,
      createdAt: created,
      updatedAt: created,
    });
    codes.push({
      id: newId(),
      orderId: id,
      postomatId,
      type: 'UP',
      password: `U${String(i).padStart(6, '0')}`,
      active,
      createdAt: created,
      updatedAt: created,
    });
  }
  await insertChunked(db, 'recipient', recipients);
  await insertChunked(db, 'locker_order', orders);
  await insertChunked(db, 'order_status', statuses);
  await insertChunked(db, 'order_code', codes);
  await sql`delete from order_stats where ${sql.ref('companyId')} = ${companyId}`.execute(db);
  await sql`insert into order_stats (${sql.join(['companyId', 'status', 'count', 'price', 'deliveryPrice', 'paidAmount', 'notPaidAmount', 'promoCodeAmount', 'version'].map((c) => sql.ref(c)))})
    select ${sql.ref('companyId')}, ${sql.ref('status')}, count(*), sum(${sql.ref('price')}), sum(${sql.ref('deliveryPrice')}), sum(${sql.ref('paidAmount')}),
      sum(${sql.ref('notPaidAmount')}), sum(${sql.ref('promoCodeAmount')}), 1
    from locker_order where ${sql.ref('companyId')} = ${companyId} and ${sql.ref('isActive')} = 1 group by ${sql.ref('companyId')}, ${sql.ref('status')}`.execute(
    db,
  );
}

/**
 * `countries` active countries with two active cities each, both named as in every other country
 * ('Central', 'North': title order then rests on ids), one inactive city each, and `districts`
 * districts in `districtCityId`, every tenth inactive. Returns the countries' ids in title order.
 */
export async function seedManyPlaces(
  db: Db,
  countries: number,
  districts: number,
  districtCityId: string,
  at: string,
): Promise<string[]> {
  const countryRows = Array.from({ length: countries }, (_, i) => ({
    id: newId(),
    title: `Country ${String(i).padStart(4, '0')}`,
    isActive: 1,
    createdAt: at,
    updatedAt: at,
  }));
  const cityRows = countryRows.flatMap((c) =>
    ['Central', 'North', 'Closed'].map((title) => ({
      id: newId(),
      title,
      isActive: title === 'Closed' ? 0 : 1,
      countryId: c.id,
      createdAt: at,
      updatedAt: at,
    })),
  );
  const districtRows = Array.from({ length: districts }, (_, i) => ({
    id: newId(),
    title: `District ${i % 100}`,
    isActive: i % 10 === 9 ? 0 : 1,
    cityId: districtCityId,
    createdAt: at,
    updatedAt: at,
  }));
  await insertChunked(db, 'country', countryRows);
  await insertChunked(db, 'city', cityRows);
  await insertChunked(db, 'district', districtRows);
  return countryRows.map((c) => c.id);
}
