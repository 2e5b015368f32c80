/**
 * Order creation: the order, its recipient, its CREATED status, its three codes, the
 * company's maintained counters, (with `pay`) the balance debit and the change record that
 * carries the codes to the locker commit together or not at all.
 */
import type { OrderKind } from '../../shared/mqtt/schemas.ts';
import type { Clock } from '../../shared/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { CODE_TYPES } from '../domain/order-states.ts';
import { firstCodeDraw, pickFreeCodes, pickOrderCodes, secureRandomInt, type RandomInt } from '../domain/codes.ts';
import { liveCodesAmong, liveCodesAt } from '../storage/order-queries.ts';
import { newId } from '../storage/ids.ts';
import { insertOrder, insertOrderCodes, recordOrderStatus } from '../storage/order-writes.ts';
import { addToStats, amountsOf } from '../storage/order-stats.ts';
import { debitLockerBalance } from '../storage/locker-company-queries.ts';
import { recipientIdOf } from '../storage/recipient-queries.ts';
import type { LockerOrderTable } from '../storage/schema.ts';
import type { Tx, UnitOfWork } from './unit-of-work.ts';
import { reserveCell, type Reservation } from './cell-capacity.ts';
import { admitOrderAt, type OrderTargetConfig } from './order-target.ts';
import type { CellSize, ParcelDimensions } from '../domain/cell-sizes.ts';

export interface CreateOrderInput {
  companyId: string;
  postomatId: string;
  toUserPhone: string;
  sendMessage: boolean;
  days?: number;
  weight?: number;
  customData?: string;
  pay?: boolean;
  /** Size-aware booking (issue 22): a size or the parcel's dimensions, held until reserveUntil. */
  cellSize?: CellSize;
  dimensions?: ParcelDimensions;
  /** ISO time, checked against the clock by the caller (domain/cell-sizes.ts reserveUntilProblem) */
  reserveUntil?: string;
  /** RETURN: the phone is the sender's, who drops the parcel off (docs/decisions.md, "Returns") */
  kind?: OrderKind;
}

export interface CreateOrderDeps {
  clock: Clock;
  randomInt?: RandomInt;
  config?: OrderTargetConfig & { overbookingRatio?: number };
}

/** Two concurrent creations may draw the same code: the unique index refuses one, which draws again. */
export const CREATE_REDRAW_ATTEMPTS = 8;

export async function createOrder(
  deps: CreateOrderDeps & { uow: UnitOfWork },
  input: CreateOrderInput,
): Promise<LockerOrderTable> {
  return deps.uow.run((tx) => createIn(tx, deps, input), { redrawAttempts: CREATE_REDRAW_ATTEMPTS });
}

/** Creates an order inside the caller's unit of work (the marketplace creates a parcel and its order together). */
export async function createIn(tx: Tx, deps: CreateOrderDeps, input: CreateOrderInput): Promise<LockerOrderTable> {
  const trx = tx.db;
  const now = deps.clock.now().toISOString();
  const randomInt = deps.randomInt ?? secureRandomInt;
  // The first codes are drawn now, so that the read admitting the order also says which are live.
  const drawn = firstCodeDraw(randomInt);
  const target = await admitOrderAt(trx, input.postomatId, input.companyId, deps.config, { drawnCodes: drawn });
  const { company, liveDrawnCodes, lockerSubscriptions } = target;
  const sized = input.cellSize || input.dimensions;
  const held: Reservation | undefined = sized
    ? await reserveCell(
        trx,
        input.postomatId,
        { ...input, reserveUntil: input.reserveUntil ? new Date(input.reserveUntil) : undefined },
        deps.clock.now(),
        deps.config?.overbookingRatio,
      )
    : undefined;

  const due = company.orderPrice + company.deliveryPrice;
  let paidAmount = 0;
  if (input.pay && due > 0) {
    // Conditional debit: concurrent payments can never take the balance below zero.
    if (!(await debitLockerBalance(trx, company.id, due, now))) throw new DomainError('INSUFFICIENT_FUNDS');
    paidAmount = due;
  }

  const recipientId = await recipientIdOf(trx, input.toUserPhone, now);

  const orderId = newId();
  const statusId = newId();
  const order: LockerOrderTable = {
    id: orderId,
    postomatId: input.postomatId,
    companyId: input.companyId,
    toUserId: recipientId,
    cellId: null,
    currentStatusId: statusId,
    status: 'CREATED',
    days: input.days ?? company.defaultDays,
    weight: input.weight ?? 0,
    customData: input.customData ?? null,
    sendMessage: input.sendMessage ? 1 : 0,
    isActive: 1,
    price: company.orderPrice,
    deliveryPrice: company.deliveryPrice,
    paidAmount,
    notPaidAmount: due - paidAmount,
    promoCodeAmount: 0,
    startDateTime: null,
    endDateTime: null,
    ...(held ? { cellSize: held.cellSize, reserveUntil: held.reserveUntil } : {}),
    kind: input.kind ?? 'DELIVERY',
    createdAt: now,
    updatedAt: now,
  };
  await insertOrder(trx, order);
  await recordOrderStatus(trx, { id: statusId, orderId, type: 'CREATED', createdAt: now, updatedAt: now });

  const codes =
    (await pickFreeCodes((more) => liveCodesAmong(trx, input.postomatId, more), randomInt, {
      drawn,
      live: liveDrawnCodes,
    })) ?? pickOrderCodes(await liveCodesAt(trx, input.postomatId), randomInt);
  await insertOrderCodes(
    trx,
    CODE_TYPES.map((type) => ({
      id: newId(),
      orderId,
      postomatId: input.postomatId,
      type,
      password: codes[type],
      active: 1,
      createdAt: now,
      updatedAt: now,
    })),
  );

  await addToStats(trx, input.companyId, 'CREATED', 1, amountsOf(order));
  await tx.after.orderEvent(order, 'order.created', deps.clock.now(), { lockerSubscriptions });
  // Last: on PostgreSQL it holds the locker's sync row until commit.
  await tx.after.lockerChanged(input.postomatId, orderId);
  return order;
}
