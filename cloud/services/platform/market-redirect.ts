/**
 * PUT /parcel/track-code/{trackCode}/redirect: the parcel is pointed at a new pickup point or
 * locker (parcels.ts#redirectParcel) and its locker order follows it in the same transaction
 * (domain/platform/market-redirect.ts): moved to the new locker, withdrawn, or created there.
 * The locker side's refusals are POSTOMAT_PROVIDER_ERROR (the spec's 502 "Postomat provider
 * error"): the parcel is already in a cell or was collected, the marketplace has no locker
 * access, or its locker company cannot pay the new order.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { canRedirect } from '../../domain/platform/statuses.ts';
import { lockerOrderOnRedirect } from '../../domain/platform/market-redirect.ts';
import { isLockerPhone } from '../../domain/phone.ts';
import { moveOrderToPostomat, withdrawOrder } from '../order-moves.ts';
import { redirectParcel, setParcelLockerOrder, type Parcel, type RedirectTarget } from './parcels.ts';
import { findPickupPoint, pickupPointOwners } from './market-places.ts';
import { lockerCompanyOf } from './locker-access.ts';
import type { Tx } from '../unit-of-work.ts';
import { findClientPhone } from '../../storage/platform-client-queries.ts';
import {
  activePostomat,
  createParcelLockerOrder,
  lockerOrderOf,
  marketParcel,
  providerError,
  type MarketDeps,
} from './market-parcels.ts';

/** A locker-side step: its refusal (an order changed meanwhile, no codes left) is the provider's error. */
async function lockerSide<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError && err.code !== 'POSTOMAT_PROVIDER_ERROR')
      throw providerError(`${err.code}: ${err.message}`);
    throw err;
  }
}

export async function redirectMarketParcel(
  tx: Tx,
  deps: MarketDeps,
  marketId: number,
  trackCode: string,
  target: RedirectTarget,
): Promise<Parcel> {
  const trx = tx.db;
  const now = deps.clock.now();
  const parcel = await marketParcel(trx, marketId, trackCode);
  if (!canRedirect(parcel.status))
    throw new DomainError('NOT_ACCEPTABLE', `a parcel in ${parcel.status} cannot be redirected`);
  if ('warehouseId' in target) {
    // The spec names a missing pickup point COMPANY_NOT_FOUND here.
    if (!(await findPickupPoint(trx, await pickupPointOwners(trx, marketId), target.warehouseId)))
      throw new DomainError('COMPANY_NOT_FOUND');
  } else {
    await activePostomat(trx, target.postomatId);
  }

  const order = await lockerOrderOf(trx, parcel);
  const step = lockerOrderOnRedirect(order, 'postomatId' in target ? 'POSTOMAT' : 'PICKUP');
  if (step === 'REFUSE')
    throw providerError(
      `locker order ${order!.id} is ${order!.status}: the parcel is no longer on its way to the locker`,
    );
  if ((step === 'MOVE' || step === 'CREATE') && !(await lockerCompanyOf(trx, marketId)))
    throw providerError(`marketplace ${marketId} has no locker access`);

  const redirected = await redirectParcel(trx, parcel.id, target, now);
  if (step === 'WITHDRAW') await lockerSide(() => withdrawOrder(tx, order!.id, now));
  if (!('postomatId' in target) || step === 'NONE' || step === 'WITHDRAW') return redirected;

  const moved =
    step === 'MOVE'
      ? await lockerSide(() => moveOrderToPostomat(tx, order!.id, target.postomatId, now, deps.randomInt))
      : await createParcelLockerOrder(tx, deps, marketId, {
          postomatId: target.postomatId,
          phone: await receiverPhone(trx, parcel),
          weight: parcel.weight,
          trackCode: parcel.trackCode,
        });
  return setParcelLockerOrder(trx, parcel.id, { postomatId: moved.postomatId, postomatOrderId: moved.id }, now);
}

/** The phone the new locker order is for: the parcel's client's, if the locker side can take it. */
async function receiverPhone(trx: Db, parcel: Parcel): Promise<string> {
  const client = parcel.clientId === null ? undefined : await findClientPhone(trx, parcel.clientId);
  if (!client?.phone || !isLockerPhone(client.phone))
    throw providerError(`parcel ${parcel.id} has no receiver phone a locker order can take`);
  return client.phone;
}
