/**
 * Marketplace parcels: creation (the parcel, its receiver and sender registered with the
 * partner that handles it, and with `createPostomatOrder` a paid locker order without SMS,
 * all in the caller's transaction) and the reads by track code and by locker order. A
 * marketplace sees only the parcels it created (it is their partner company).
 */
import type { Db } from '../../storage/database.ts';
import type { Clock } from '../../../shared/clock.ts';
import type { LockerOrderTable } from '../../storage/schema.ts';
import type { Tx } from '../unit-of-work.ts';
import type { RandomInt } from '../../domain/codes.ts';
import { DomainError } from '../../domain/errors.ts';
import { marketStatus } from '../../domain/platform/market-status.ts';
import type { MarketStatus } from '../../domain/platform/enums.ts';
import { parcelOwner } from '../../domain/platform/market-owner.ts';
import { createIn, type CreateOrderDeps } from '../create-order.ts';
import { findCode, type CodeRow } from '../../storage/order-queries.ts';
import { orderById } from '../../storage/order-lookups.ts';
import { createParcel, setParcelLockerOrder, type Parcel } from './parcels.ts';
import { findOrCreateClientByPhone, findOrCreateSupplierByPhone } from './clients.ts';
import { findPickupPoint, pickupPointOwners } from './market-places.ts';
import { lockerCompanyOf } from './locker-access.ts';
import { activePostomatId } from '../../storage/postomat-queries.ts';
import { partnersWithType } from '../../storage/platform-company-queries.ts';
import { findMarketParcel, findMarketParcelOfOrder } from '../../storage/shipment-lookups.ts';

export interface MarketDeps {
  clock: Clock;
  randomInt?: RandomInt;
  /** the cloud's order limits (create-order.ts) */
  config?: CreateOrderDeps['config'];
}

export interface MarketParty {
  name: string;
  phone: string;
  address: string;
  countryId: number;
  cityId: number;
}

export interface MarketParcelInput {
  deliveryMethod: 'POSTOMAT' | 'PICKUP';
  postomatId?: string;
  warehouseId?: number;
  createPostomatOrder: boolean;
  trackCode?: string;
  weight: number;
  /** minor units */
  price: number;
  currency: string;
  receiver: MarketParty;
  sender: MarketParty;
}

/** A parcel with its locker order and that order's DOWN code, when it has one. */
export interface MarketParcelView {
  parcel: Parcel;
  order?: LockerOrderTable;
  downCode?: CodeRow | null;
}

/** A refusal of the locker side (the spec's 502 "Postomat provider error"); `why` is for logs. */
export const providerError = (why: string) => new DomainError('POSTOMAT_PROVIDER_ERROR', why);

export async function activePostomat(db: Db, id: string): Promise<void> {
  const p = await activePostomatId(db, id);
  if (!p) throw new DomainError('POSTOMAT_NOT_FOUND');
}

/** The company that handles a marketplace's parcels (domain/platform/market-owner.ts). */
async function ownerOf(db: Db, marketId: number): Promise<number> {
  const partners = await partnersWithType(db, marketId);
  const owner = parcelOwner(partners);
  if (!owner)
    throw new DomainError(
      'CODE_NOT_FOUND',
      `marketplace ${marketId} has no active logistics or courier partner to register its clients with`,
    );
  return owner.id;
}

/**
 * A paid locker order of the marketplace's locker company for the parcel, without SMS. Every
 * refusal of the locker side (no access, a balance that cannot pay) is POSTOMAT_PROVIDER_ERROR.
 */
export async function createParcelLockerOrder(
  tx: Tx,
  deps: MarketDeps,
  marketId: number,
  o: { postomatId: string; phone: string; weight: number; trackCode: string },
) {
  const lockerCompanyId = await lockerCompanyOf(tx.db, marketId);
  if (!lockerCompanyId) throw providerError(`marketplace ${marketId} has no locker access`);
  try {
    return await createIn(tx, deps, {
      companyId: lockerCompanyId,
      postomatId: o.postomatId,
      toUserPhone: o.phone,
      sendMessage: false,
      weight: o.weight,
      pay: true,
      // The track code on the locker order lets the locker side's lists name the parcel.
      customData: o.trackCode,
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'INSUFFICIENT_FUNDS')
      throw providerError('the locker company cannot pay the order');
    if (err instanceof DomainError && err.code === 'TOO_MANY_PENDING_ORDERS')
      throw providerError(`the locker company has too many orders waiting at locker ${o.postomatId}`);
    throw err;
  }
}

export async function createMarketParcel(
  tx: Tx,
  deps: MarketDeps,
  marketId: number,
  input: MarketParcelInput,
): Promise<MarketParcelView> {
  const trx = tx.db;
  const now = deps.clock.now();
  if (input.deliveryMethod === 'POSTOMAT') await activePostomat(trx, input.postomatId!);
  else if (!(await findPickupPoint(trx, await pickupPointOwners(trx, marketId), input.warehouseId!)))
    throw new DomainError('WAREHOUSE_NOT_FOUND');

  const companyId = await ownerOf(trx, marketId);
  const { receiver, sender } = input;
  const client = await findOrCreateClientByPhone(
    trx,
    {
      companyId,
      phone: receiver.phone,
      name: receiver.name,
      address: receiver.address,
      countryId: receiver.countryId,
      cityId: receiver.cityId,
    },
    now,
  );
  const supplier = await findOrCreateSupplierByPhone(
    trx,
    { companyId, phone: sender.phone, name: sender.name, address: sender.address, cityId: sender.cityId },
    now,
  );
  let parcel = await createParcel(
    trx,
    {
      companyId,
      partnerCompanyId: marketId,
      trackCode: input.trackCode,
      weight: input.weight,
      price: input.price,
      currency: input.currency,
      deliveryMethod: input.deliveryMethod,
      postomatId: input.deliveryMethod === 'POSTOMAT' ? input.postomatId : null,
      deliveryWarehouseId: input.deliveryMethod === 'PICKUP' ? input.warehouseId : null,
      clientId: client.id,
      supplierId: supplier.id,
      receiptCityId: sender.cityId,
      deliveryCityId: receiver.cityId,
    },
    now,
  );
  if (input.deliveryMethod !== 'POSTOMAT' || !input.createPostomatOrder) return { parcel };

  const order = await createParcelLockerOrder(tx, deps, marketId, {
    postomatId: input.postomatId!,
    phone: receiver.phone,
    weight: input.weight,
    trackCode: parcel.trackCode,
  });
  parcel = await setParcelLockerOrder(trx, parcel.id, { postomatId: order.postomatId, postomatOrderId: order.id }, now);
  return { parcel, order, downCode: (await findCode(trx, order.id, 'DOWN')) ?? null };
}

export async function marketParcel(db: Db, marketId: number, trackCode: string): Promise<Parcel> {
  const parcel = await findMarketParcel(db, marketId, trackCode);
  if (!parcel) throw new DomainError('PARCEL_NOT_FOUND');
  return parcel;
}

/** The marketplace's parcel delivered by this locker order (the spec's GET /order/{id}). */
export async function marketParcelOfOrder(db: Db, marketId: number, orderId: string): Promise<Parcel> {
  const parcel = await findMarketParcelOfOrder(db, marketId, orderId);
  if (!parcel) throw new DomainError('ORDER_NOT_FOUND');
  return parcel;
}

export function lockerOrderOf(db: Db, parcel: Pick<Parcel, 'postomatOrderId'>): Promise<LockerOrderTable | undefined> {
  if (!parcel.postomatOrderId) return Promise.resolve(undefined);
  return orderById(db, parcel.postomatOrderId);
}

export async function marketParcelView(db: Db, parcel: Parcel): Promise<MarketParcelView> {
  const order = await lockerOrderOf(db, parcel);
  if (!order) return { parcel };
  return { parcel, order, downCode: (await findCode(db, order.id, 'DOWN')) ?? null };
}

export async function marketParcelStatus(db: Db, parcel: Parcel): Promise<MarketStatus> {
  const order = await lockerOrderOf(db, parcel);
  return marketStatus({
    status: parcel.status,
    atPickupPoint: parcel.atPickupPoint === 1,
    redirectedAt: parcel.redirectedAt,
    lockerOrderStatus: order?.status ?? null,
  });
}
