/** Cargo types (with their delivery types) and delivery types: the platform's public reference. */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CargoKind } from '../../domain/platform/enums.ts';
import type { Titles } from './directories.ts';
import { defined, flag, inTransaction } from './tx.ts';

export interface CargoTypeInput extends Titles {
  title: string;
  type: CargoKind;
  isParent?: boolean;
  parentId?: number | null;
  isActive?: boolean;
  deliveryTypeIds?: number[];
}

export async function createDeliveryType(db: Db, title: string, now: Date) {
  const at = now.toISOString();
  const taken = await db.selectFrom('delivery_type').select('id').where('title', '=', title).executeTakeFirst();
  if (taken) throw new DomainError('NOT_ACCEPTABLE', `delivery type "${title}" exists (id ${taken.id})`);
  return db
    .insertInto('delivery_type')
    .values({ title, createdAt: at, updatedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listDeliveryTypes(db: Db) {
  return db.selectFrom('delivery_type').selectAll().orderBy('id').execute();
}

async function checkParent(db: Db, parentId: number | null | undefined) {
  if (parentId === null || parentId === undefined) return;
  const parent = await db
    .selectFrom('cargo_type')
    .select(['id', 'isParent'])
    .where('id', '=', parentId)
    .executeTakeFirst();
  if (!parent) throw new DomainError('NOT_FOUND', `no cargo type ${parentId}`);
  if (!parent.isParent) throw new DomainError('NOT_ACCEPTABLE', `cargo type ${parentId} is not a parent type`);
}

async function setDeliveryTypes(db: Db, cargoTypeId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (unique.length) {
    const found = await db.selectFrom('delivery_type').select('id').where('id', 'in', unique).execute();
    const missing = unique.filter((id) => !found.some((f) => f.id === id));
    if (missing.length) throw new DomainError('NOT_FOUND', `no delivery type ${missing.join(', ')}`);
  }
  await db.deleteFrom('cargo_type_delivery_type').where('cargoTypeId', '=', cargoTypeId).execute();
  if (unique.length)
    await db
      .insertInto('cargo_type_delivery_type')
      .values(unique.map((deliveryTypeId) => ({ cargoTypeId, deliveryTypeId })))
      .execute();
}

export function createCargoType(db: Db, input: CargoTypeInput, now: Date) {
  return inTransaction(db, async (trx) => {
    await checkParent(trx, input.parentId);
    const at = now.toISOString();
    const row = await trx
      .insertInto('cargo_type')
      .values({
        title: input.title,
        titleRU: input.titleRU ?? null,
        titleCN: input.titleCN ?? null,
        titleEN: input.titleEN ?? null,
        titleKY: input.titleKY ?? null,
        type: input.type,
        isParent: input.isParent ? 1 : 0,
        parentId: input.parentId ?? null,
        isActive: input.isActive === false ? 0 : 1,
        createdAt: at,
        updatedAt: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await setDeliveryTypes(trx, row.id, input.deliveryTypeIds ?? []);
    return row;
  });
}

export function updateCargoType(db: Db, id: number, changes: Partial<CargoTypeInput>, now: Date) {
  return inTransaction(db, async (trx) => {
    const { isParent, isActive, deliveryTypeIds, ...rest } = changes;
    if (rest.parentId === id) throw new DomainError('NOT_ACCEPTABLE', 'a cargo type cannot be its own parent');
    await checkParent(trx, rest.parentId);
    const row = await trx
      .updateTable('cargo_type')
      .set({
        ...defined(rest),
        ...defined({ isParent: flag(isParent), isActive: flag(isActive) }),
        updatedAt: now.toISOString(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new DomainError('NOT_FOUND', `no cargo type ${id}`);
    if (deliveryTypeIds) await setDeliveryTypes(trx, id, deliveryTypeIds);
    return row;
  });
}

export async function getCargoType(db: Db, id: number) {
  const row = await db.selectFrom('cargo_type').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new DomainError('NOT_FOUND', `no cargo type ${id}`);
  return row;
}

/** Cargo types with their delivery types `{ id, title }`, optionally only active ones of some kinds. */
export async function listCargoTypes(db: Db, filter: { kinds?: CargoKind[]; activeOnly?: boolean } = {}) {
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
