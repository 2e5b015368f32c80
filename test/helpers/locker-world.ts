/** A small locker world built through the operator's own services: two companies, lockers, cells. */
import type { Db } from '../../cloud/storage/database.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createCity, createCountry, createDistrict } from '../../cloud/services/admin/directories.ts';
import { createPostomat } from '../../cloud/services/admin/postomats.ts';
import { transitionOrder } from '../../cloud/services/order-transitions.ts';
import type { Storage } from '../../cloud/storage/database.ts';
import { createUnitOfWork } from '../../cloud/consequences.ts';

/** `now` stamps the records (tests with a ManualClock pass its time). */
export async function seedLockerWorld(db: Db, now = new Date()) {
  const companyA = await createLockerCompany(
    db,
    { title: 'Alpha Post', defaultDays: 3, balance: 100_000, orderPrice: 15_000, deliveryPrice: 10 },
    now,
  );
  const companyB = await createLockerCompany(db, { title: 'Beta Express', defaultDays: 5 }, now);
  const keyA = await createLockerApiKey(db, companyA.id, undefined, now);
  const keyB = await createLockerApiKey(db, companyB.id, undefined, now);

  const country = await createCountry(db, 'Kyrgyzstan', undefined, now);
  const hiddenCountry = await createCountry(db, 'Atlantis', false, now);
  const bishkek = await createCity(db, country.id, 'Bishkek', undefined, now);
  const osh = await createCity(db, country.id, 'Osh', undefined, now);
  const closedCity = await createCity(db, country.id, 'Closed City', false, now);
  const center = await createDistrict(db, bishkek.id, 'Center', undefined, now);
  const south = await createDistrict(db, bishkek.id, 'South', undefined, now);
  const oshCenter = await createDistrict(db, osh.id, 'Osh Center', undefined, now);
  await createDistrict(db, bishkek.id, 'Retired', false, now);

  const cells = [
    { number: 1, size: 'S' as const, board: 0, lock: 1 },
    { number: 2, size: 'S' as const, board: 0, lock: 2 },
    { number: 3, size: 'M' as const, board: 0, lock: 3 },
    { number: 4, size: 'L' as const, board: 1, lock: 1, isActive: false },
  ];
  // Titles chosen so that title order differs from distance order from `here`.
  const here = { lat: 42.8746, lng: 74.5698 };
  const near = await createPostomat(
    db,
    { title: 'Zeta Mall', lat: 42.875, lng: 74.57, cityId: bishkek.id, districtId: center.id, shortId: 'ZETA01' },
    cells,
    now,
  );
  const mid = await createPostomat(
    db,
    { title: 'Beta Station', lat: 42.84, lng: 74.6, cityId: bishkek.id, districtId: south.id, shortId: 'BETA01' },
    cells,
    now,
  );
  const far = await createPostomat(
    db,
    { title: 'Alpha Bazaar', lat: 40.513, lng: 72.816, cityId: osh.id, districtId: oshCenter.id, shortId: 'ALFA01' },
    cells,
    now,
  );
  const noCoords = await createPostomat(
    db,
    { title: 'Mystery Box', cityId: bishkek.id, shortId: 'MYST01' },
    cells,
    now,
  );
  const inactive = await createPostomat(
    db,
    { title: 'Old Depot', lat: 42.87, lng: 74.57, cityId: bishkek.id, isActive: false, shortId: 'OLD001' },
    cells,
    now,
  );

  return {
    companyA: { ...companyA, key: keyA.key },
    companyB: { ...companyB, key: keyB.key },
    country,
    hiddenCountry,
    bishkek,
    osh,
    closedCity,
    center,
    south,
    oshCenter,
    here,
    near,
    mid,
    far,
    noCoords,
    inactive,
  };
}

export type LockerWorld = Awaited<ReturnType<typeof seedLockerWorld>>;

/** The unit of work a test drives orders in: a cloud on the same storage hears of its changes after commit. */
export const testUow = (storage: Pick<Storage, 'db' | 'changes'>) => createUnitOfWork(storage.db, storage.changes);

/** Drives an order through the locker flow the way the agent's events will. */
export async function placeOrder(storage: Pick<Storage, 'db' | 'changes'>, orderId: string, cellId: string, at: Date) {
  return testUow(storage).run((tx) => transitionOrder(tx, { orderId, to: 'DELIVERED', cellId, at }));
}
export async function finishOrder(
  storage: Pick<Storage, 'db' | 'changes'>,
  orderId: string,
  to: 'COMPLETED' | 'SUBTRACTED',
  at: Date,
) {
  return testUow(storage).run((tx) => transitionOrder(tx, { orderId, to, at }));
}
