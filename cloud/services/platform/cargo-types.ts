/** Cargo types (with their delivery types) and delivery types: the platform's public reference. */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CargoKind } from '../../domain/platform/enums.ts';
import {
  cargoTypesWithDeliveryTypes,
  existingDeliveryTypeIds,
  findCargoType,
  findCargoTypeParentFlag,
  findDeliveryTypeIdByTitle,
  insertCargoType,
  insertDeliveryType,
  listDeliveryTypeRows,
  replaceCargoTypeDeliveryTypes,
  updateCargoTypeRow,
} from '../../storage/cargo-type-queries.ts';
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
  const taken = await findDeliveryTypeIdByTitle(db, title);
  if (taken) throw new DomainError('NOT_ACCEPTABLE', `delivery type "${title}" exists (id ${taken.id})`);
  return insertDeliveryType(db, title, at);
}

export function listDeliveryTypes(db: Db) {
  return listDeliveryTypeRows(db);
}

async function checkParent(db: Db, parentId: number | null | undefined) {
  if (parentId === null || parentId === undefined) return;
  const parent = await findCargoTypeParentFlag(db, parentId);
  if (!parent) throw new DomainError('NOT_FOUND', `no cargo type ${parentId}`);
  if (!parent.isParent) throw new DomainError('NOT_ACCEPTABLE', `cargo type ${parentId} is not a parent type`);
}

async function setDeliveryTypes(db: Db, cargoTypeId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (unique.length) {
    const found = await existingDeliveryTypeIds(db, unique);
    const missing = unique.filter((id) => !found.some((f) => f.id === id));
    if (missing.length) throw new DomainError('NOT_FOUND', `no delivery type ${missing.join(', ')}`);
  }
  await replaceCargoTypeDeliveryTypes(db, cargoTypeId, unique);
}

export function createCargoType(db: Db, input: CargoTypeInput, now: Date) {
  return inTransaction(db, async (trx) => {
    await checkParent(trx, input.parentId);
    const at = now.toISOString();
    const row = await insertCargoType(trx, {
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
    });
    await setDeliveryTypes(trx, row.id, input.deliveryTypeIds ?? []);
    return row;
  });
}

export function updateCargoType(db: Db, id: number, changes: Partial<CargoTypeInput>, now: Date) {
  return inTransaction(db, async (trx) => {
    const { isParent, isActive, deliveryTypeIds, ...rest } = changes;
    if (rest.parentId === id) throw new DomainError('NOT_ACCEPTABLE', 'a cargo type cannot be its own parent');
    await checkParent(trx, rest.parentId);
    const row = await updateCargoTypeRow(trx, id, {
      ...defined(rest),
      ...defined({ isParent: flag(isParent), isActive: flag(isActive) }),
      updatedAt: now.toISOString(),
    });
    if (!row) throw new DomainError('NOT_FOUND', `no cargo type ${id}`);
    if (deliveryTypeIds) await setDeliveryTypes(trx, id, deliveryTypeIds);
    return row;
  });
}

export async function getCargoType(db: Db, id: number) {
  const row = await findCargoType(db, id);
  if (!row) throw new DomainError('NOT_FOUND', `no cargo type ${id}`);
  return row;
}

/** Cargo types with their delivery types `{ id, title }`, optionally only active ones of some kinds. */
export function listCargoTypes(db: Db, filter: { kinds?: CargoKind[]; activeOnly?: boolean } = {}) {
  return cargoTypesWithDeliveryTypes(db, filter);
}
