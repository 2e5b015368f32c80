/** One parcel or cargo item (by id, by track code, a marketplace's by its locker order) and its status history. */
import type { Db } from './database.ts';

export function findParcel(db: Db, id: number) {
  return db.selectFrom('parcel').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findParcelByTrackCode(db: Db, trackCode: string) {
  return db.selectFrom('parcel').selectAll().where('trackCode', '=', trackCode).executeTakeFirst();
}

/** The parcel with this track code that the marketplace created. */
export function findMarketParcel(db: Db, marketId: number, trackCode: string) {
  return db
    .selectFrom('parcel')
    .selectAll()
    .where('trackCode', '=', trackCode)
    .where('partnerCompanyId', '=', marketId)
    .executeTakeFirst();
}

/** The marketplace's parcel delivered by this locker order. */
export function findMarketParcelOfOrder(db: Db, marketId: number, orderId: string) {
  return db
    .selectFrom('parcel')
    .selectAll()
    .where('postomatOrderId', '=', orderId)
    .where('partnerCompanyId', '=', marketId)
    .executeTakeFirst();
}

export function parcelStatusRecords(db: Db, parcelId: number) {
  return db.selectFrom('parcel_status').selectAll().where('parcelId', '=', parcelId).orderBy('id').execute();
}

export function findCargo(db: Db, id: number) {
  return db.selectFrom('cargo').selectAll().where('id', '=', id).executeTakeFirst();
}

export function cargoStatusRecords(db: Db, cargoId: number) {
  return db.selectFrom('cargo_status').selectAll().where('cargoId', '=', cargoId).orderBy('id').execute();
}
