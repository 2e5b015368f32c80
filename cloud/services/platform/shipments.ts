/**
 * What parcels and cargo share: checking the records they point at, and keeping their
 * denormalised columns (client code and company, paid state, pickup-point and final-point
 * flags, search text) in step with the records they are copied from.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { codeNamesFor } from '../../domain/platform/client-codes.ts';
import { cargoSearchText, parcelSearchText } from '../../domain/platform/search-text.ts';
import type { WarehouseFacts } from '../../domain/platform/placement.ts';
import {
  codeNamesOfCompany,
  findActor,
  findCargoKind,
  findClientCode,
  findClientCompanyId,
  findCompanyTitle,
  findPartnership,
  findPaymentOrderPaid,
  findPlatformCityId,
  findSupplierId,
  findWarehousePickupFlag,
  getCompanyTitle,
} from '../../storage/shipment-references.ts';
import { updateIfStatusIs, type ShipmentKind } from '../../storage/shipment-writes.ts';

export async function warehouseFacts(db: Db, id: number | null | undefined): Promise<WarehouseFacts | null> {
  if (id === null || id === undefined) return null;
  const w = await findWarehousePickupFlag(db, id);
  if (!w) throw new DomainError('WAREHOUSE_NOT_FOUND', `no warehouse ${id}`);
  return { id: w.id, isPickupPoint: w.isPickupPoint === 1 };
}

export function checkAmounts(weight: number, price: number): void {
  if (!(weight >= 0)) throw new DomainError('NOT_ACCEPTABLE', 'weight must be >= 0');
  if (!Number.isSafeInteger(price) || price < 0)
    throw new DomainError('NOT_ACCEPTABLE', 'price must be a whole number of minor units >= 0');
}

/** The references a new parcel or cargo item names, checked; returns the client's copied columns. */
export async function checkShipmentRefs(
  db: Db,
  refs: {
    companyId: number;
    clientId?: number | null;
    supplierId?: number | null;
    cargoTypeId?: number | null;
    warehouseIds: Array<number | null | undefined>;
    cityIds: Array<number | null | undefined>;
    paymentOrderId?: number | null;
  },
) {
  const company = await findCompanyTitle(db, refs.companyId);
  if (!company) throw new DomainError('COMPANY_NOT_FOUND', `no platform company ${refs.companyId}`);
  let client: { id: number; companyId: number; code: number } | undefined;
  if (refs.clientId != null) {
    client = await findClientCode(db, refs.clientId);
    if (!client) throw new DomainError('CLIENT_NOT_FOUND', `no client ${refs.clientId}`);
  }
  if (refs.supplierId != null) {
    const s = await findSupplierId(db, refs.supplierId);
    if (!s) throw new DomainError('SUPPLIER_NOT_FOUND', `no supplier ${refs.supplierId}`);
  }
  let cargoKind: string | null = null;
  if (refs.cargoTypeId != null) {
    const t = await findCargoKind(db, refs.cargoTypeId);
    if (!t) throw new DomainError('NOT_FOUND', `no cargo type ${refs.cargoTypeId}`);
    cargoKind = t.type;
  }
  for (const id of refs.warehouseIds) await warehouseFacts(db, id);
  for (const id of refs.cityIds) {
    if (id == null) continue;
    const c = await findPlatformCityId(db, id);
    if (!c) throw new DomainError('NOT_FOUND', `no platform city ${id}`);
  }
  let isPaid: number | null = null;
  if (refs.paymentOrderId != null) {
    const o = await findPaymentOrderPaid(db, refs.paymentOrderId);
    if (!o) throw new DomainError('NOT_FOUND', `no payment order ${refs.paymentOrderId}`);
    isPaid = o.isPaid;
  }
  return {
    companyTitle: company.title,
    clientCompanyId: client?.companyId ?? null,
    clientCode: client?.code ?? null,
    cargoKind,
    isPaid,
  };
}

/**
 * The search text of one item from what it points at now: its own parts and the code names of
 * its client's company. The client's name and phone are the client's own search text.
 */
export async function shipmentSearchText(
  db: Db,
  kind: ShipmentKind,
  item: {
    trackCode?: string | null;
    description: string | null;
    tractorNumber?: string | null;
    clientId: number | null;
    cargoTypeId: number | null;
    companyId: number;
  },
): Promise<string> {
  const client = item.clientId === null ? undefined : await findClientCompanyId(db, item.clientId);
  const codes = client ? await codeNamesOfCompany(db, client.companyId) : [];
  const names = codeNamesFor(codes, item.cargoTypeId);
  if (kind === 'parcel')
    return parcelSearchText({ trackCode: item.trackCode ?? '', description: item.description }, names);
  const company = await getCompanyTitle(db, item.companyId);
  return cargoSearchText(
    { description: item.description, tractorNumber: item.tractorNumber ?? null },
    names,
    company.title,
  );
}

/**
 * Warehouse staff act for a logistics company, or for a warehouse company that works with it.
 * With no actor (the operator CLI without --user) the change is the operator's own.
 */
export async function checkActor(db: Db, userId: number | null | undefined, ownerCompanyId: number): Promise<void> {
  if (userId === null || userId === undefined) return;
  const user = await findActor(db, userId);
  if (!user?.isActive) throw new DomainError('USER_NOT_FOUND', `no active platform user ${userId}`);
  if (user.companyId === ownerCompanyId) return;
  const works = await findPartnership(db, user.companyId, ownerCompanyId);
  if (!works)
    throw new DomainError(
      'NOT_ACCEPTABLE',
      `user ${userId} works for company ${user.companyId}, which does not handle company ${ownerCompanyId}'s items`,
    );
}

/** Applies a status change only if the status is still the one read: of two racing changes one wins. */
export async function updateFromStatus(
  trx: Db,
  kind: ShipmentKind,
  id: number,
  from: string,
  changes: Record<string, unknown>,
): Promise<void> {
  if (!(await updateIfStatusIs(trx, kind, id, from, changes)))
    throw new DomainError('INVALID_TRANSITION', `${kind} ${id} changed concurrently`);
}
