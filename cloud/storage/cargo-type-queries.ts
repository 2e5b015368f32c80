/** Cargo types, their delivery types, and delivery types: the platform's public reference. */
import type { Insertable, Updateable } from 'kysely';
import type { Db } from './database.ts';
import type { CargoKind } from '../domain/platform/enums.ts';
import type { PlatformDatabase } from './platform-schema.ts';

export function findDeliveryTypeIdByTitle(db: Db, title: string) {
  return db.selectFrom('delivery_type').select('id').where('title', '=', title).executeTakeFirst();
}

export function insertDeliveryType(db: Db, title: string, at: string) {
  return db
    .insertInto('delivery_type')
    .values({ title, createdAt: at, updatedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listDeliveryTypeRows(db: Db) {
  return db.selectFrom('delivery_type').selectAll().orderBy('id').execute();
}

/** Which of these delivery types exist. */
export function existingDeliveryTypeIds(db: Db, ids: number[]) {
  return db.selectFrom('delivery_type').select('id').where('id', 'in', ids).execute();
}

/** Replaces the cargo type's delivery types with `deliveryTypeIds`. */
export async function replaceCargoTypeDeliveryTypes(db: Db, cargoTypeId: number, deliveryTypeIds: number[]) {
  await db.deleteFrom('cargo_type_delivery_type').where('cargoTypeId', '=', cargoTypeId).execute();
  if (deliveryTypeIds.length)
    await db
      .insertInto('cargo_type_delivery_type')
      .values(deliveryTypeIds.map((deliveryTypeId) => ({ cargoTypeId, deliveryTypeId })))
      .execute();
}

export function findCargoTypeParentFlag(db: Db, id: number) {
  return db.selectFrom('cargo_type').select(['id', 'isParent']).where('id', '=', id).executeTakeFirst();
}

export function insertCargoType(db: Db, cargoType: Insertable<PlatformDatabase['cargo_type']>) {
  return db.insertInto('cargo_type').values(cargoType).returningAll().executeTakeFirstOrThrow();
}

/** The changed cargo type, or undefined when there is none with this id. */
export function updateCargoTypeRow(db: Db, id: number, changes: Updateable<PlatformDatabase['cargo_type']>) {
  return db.updateTable('cargo_type').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export function findCargoType(db: Db, id: number) {
  return db.selectFrom('cargo_type').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Cargo types with their delivery types `{ id, title }`, optionally only active ones of some kinds. */
export async function cargoTypesWithDeliveryTypes(db: Db, filter: { kinds?: CargoKind[]; activeOnly?: boolean }) {
  let q = db.selectFrom('cargo_type').selectAll().orderBy('id');
  if (filter.kinds?.length) q = q.where('type', 'in', filter.kinds);
  if (filter.activeOnly) q = q.where('isActive', '=', 1);
  const types = await q.execute();
  if (!types.length) return [];
  const links = await db
    .selectFrom('cargo_type_delivery_type as l')
    .innerJoin('delivery_type as d', 'd.id', 'l.deliveryTypeId')
    .select(['l.cargoTypeId', 'd.id', 'd.title'])
    .where(
      'l.cargoTypeId',
      'in',
      types.map((t) => t.id),
    )
    .orderBy('d.id')
    .execute();
  return types.map((t) => ({
    ...t,
    deliveryTypes: links.filter((l) => l.cargoTypeId === t.id).map(({ id, title }) => ({ id, title })),
  }));
}
