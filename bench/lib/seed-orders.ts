/**
 * Bulk seeding for benchmarks: 10,000 lockers and 1,000,000 orders of one company, written
 * straight through better-sqlite3 in large transactions (the API's own path would take an
 * hour). The maintained counters are recomputed from the rows at the end, so the data is
 * exactly what the API would have produced.
 */
import SQLite from 'better-sqlite3';
import { newId as createId } from '../../cloud/storage/ids.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createCity, createCountry } from '../../cloud/services/admin/directories.ts';

export interface SeedResult {
  apiKey: string;
  companyId: string;
  postomatIds: string[];
  sampleOrderIds: string[];
}

export async function seedBenchDatabase(
  file: string,
  opts: { lockers: number; orders: number; progress: (line: string) => void },
): Promise<SeedResult> {
  const storage = await openStorage(file);
  const company = await createLockerCompany(
    storage.db,
    { title: 'Bench Co', orderPrice: 12_345, deliveryPrice: 1_010, defaultDays: 3 },
    new Date(),
  );
  const { key } = await createLockerApiKey(storage.db, company.id, 'bench', new Date());
  const country = await createCountry(storage.db, 'Benchland', undefined, new Date());
  const city = await createCity(storage.db, country.id, 'Bench City', undefined, new Date());
  await storage.close();

  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();

  const postomatIds: string[] = [];
  const cellIds: string[][] = [];
  const insertPostomat =
    db.prepare(`insert into postomat (id, incrementalid, title, lat, lng, shortId, isActive, isConnected, cityId, createdAt, updatedAt)
    values (?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?)`);
  const insertBoard = db.prepare(
    'insert into board (id, postomatId, address, title, createdAt, updatedAt) values (?, ?, 0, ?, ?, ?)',
  );
  const insertCell =
    db.prepare(`insert into cell (id, title, number, size, isActive, isOpen, forRentAvailable, postomatId, boardId, lock, createdAt, updatedAt)
    values (?, ?, ?, ?, 1, 0, 0, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < opts.lockers; i++) {
      const id = createId();
      const at = iso(now);
      // Spread over a ~500 km square around Bishkek.
      insertPostomat.run(
        id,
        i + 1,
        `Locker ${String(i).padStart(5, '0')}`,
        40 + ((i * 7919) % 5000) / 1000,
        71 + ((i * 104729) % 5000) / 1000,
        `B${i.toString(36).toUpperCase().padStart(5, '0')}`,
        city.id,
        at,
        at,
      );
      const boardId = createId();
      insertBoard.run(boardId, id, 'Board 0', at, at);
      const cells: string[] = [];
      for (let n = 1; n <= 8; n++) {
        const cellId = createId();
        insertCell.run(cellId, String(n), n, n <= 4 ? 'S' : n <= 7 ? 'M' : 'L', id, boardId, n, at, at);
        cells.push(cellId);
      }
      postomatIds.push(id);
      cellIds.push(cells);
    }
  })();
  opts.progress(`seeded ${opts.lockers} lockers`);

  const recipients: string[] = [];
  const insertRecipient = db.prepare('insert into recipient (id, phone, createdAt, updatedAt) values (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < 100_000; i++) {
      const id = createId();
      insertRecipient.run(id, `+99670${String(i).padStart(7, '0')}`, iso(now), iso(now));
      recipients.push(id);
    }
  })();

  const insertOrder =
    db.prepare(`insert into locker_order (id, postomatId, companyId, toUserId, cellId, currentStatusId, status, days, weight, customData, sendMessage, isActive,
      price, deliveryPrice, paidAmount, notPaidAmount, promoCodeAmount, startDateTime, endDateTime, createdAt, updatedAt)
    values (?, ?, ?, ?, ?, ?, ?, 3, 1.5, NULL, 0, 1, 12345, 1010, ?, ?, 0, ?, ?, ?, ?)`);
  const insertStatus = db.prepare(
    'insert into order_status (id, orderId, type, createdAt, updatedAt) values (?, ?, ?, ?, ?)',
  );
  const insertCode = db.prepare(
    'insert into order_code (id, orderId, postomatId, type, password, active, createdAt, updatedAt) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const sampleOrderIds: string[] = [];
  const openPerLocker = new Map<string, number>();
  const batch = 50_000;
  const start = now - opts.orders * 60_000; // one order a minute, oldest first
  for (let from = 0; from < opts.orders; from += batch) {
    db.transaction(() => {
      for (let i = from; i < Math.min(opts.orders, from + batch); i++) {
        const id = createId();
        const locker = i % opts.lockers;
        const postomatId = postomatIds[locker];
        const created = start + i * 60_000;
        // Mostly history; the newest 2% are still open (CREATED or DELIVERED, some expired).
        const open = i >= opts.orders * 0.98;
        const status = open ? (i % 2 ? 'DELIVERED' : 'CREATED') : i % 10 === 0 ? 'SUBTRACTED' : 'COMPLETED';
        const placed = status !== 'CREATED';
        const startAt = placed ? created + 3_600_000 : null;
        const paid = i % 3 === 0 ? 13_355 : 0;
        const statusId = createId();
        insertOrder.run(
          id,
          postomatId,
          company.id,
          recipients[i % recipients.length],
          placed ? cellIds[locker][i % 8] : null,
          statusId,
          status,
          paid,
          13_355 - paid,
          startAt === null ? null : iso(startAt),
          startAt === null ? null : iso(startAt + 3 * 86_400_000),
          iso(created),
          iso(created),
        );
        insertStatus.run(statusId, id, status, iso(created), iso(created));
        const n = open ? (openPerLocker.get(postomatId) ?? 0) : 0;
        if (open) openPerLocker.set(postomatId, n + 1);
        ['DOWN', 'UP', 'SUBTRACT'].forEach((type, t) => {
          // Open orders get distinct codes per locker; finished ones keep theirs inactive.
          const password = String(open ? n * 3 + t : (i * 3 + t) % 10_000).padStart(4, '0');
          insertCode.run(createId(), id, postomatId, type, password, open ? 1 : 0, iso(created), iso(created));
        });
        if (i % 997 === 0) sampleOrderIds.push(id);
      }
    })();
    opts.progress(
      `seeded ${Math.min(opts.orders, from + batch).toLocaleString('en')} / ${opts.orders.toLocaleString('en')} orders`,
    );
  }
  db.exec(`delete from order_stats;
    insert into order_stats (companyId, status, count, price, deliveryPrice, paidAmount, notPaidAmount, promoCodeAmount)
    select companyId, status, count(*), sum(price), sum(deliveryPrice), sum(paidAmount), sum(notPaidAmount), sum(promoCodeAmount)
    from locker_order where isActive = 1 group by companyId, status;`);
  db.exec('analyze');
  db.close();
  return { apiKey: key, companyId: company.id, postomatIds, sampleOrderIds };
}
