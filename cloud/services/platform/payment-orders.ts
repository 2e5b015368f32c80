/**
 * Payment orders: what a client owes for parcels or cargo (minor units, ISO 4217 currency).
 * Items carry the order's paid state (`isPaid`) for the `isPayed` filter; it is changed here only.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import { normalizeCurrency } from '../../domain/money.ts';
import {
  attachItemToPaymentOrder,
  findItemPaymentOrderId,
  findPaymentOrder,
  insertPaymentOrder,
  markPaymentOrderAndItemsPaid,
} from '../../storage/payment-order-queries.ts';
import { findClientId } from '../../storage/platform-client-queries.ts';
import { getPlatformCompany } from './companies.ts';
import { inTransaction } from './tx.ts';

export interface PaymentOrderInput {
  companyId: number;
  clientId?: number | null;
  /** minor units */
  amount: number;
  currency: string;
  isPaid?: boolean;
  parcelIds?: number[];
  cargoIds?: number[];
}

export async function getPaymentOrder(db: Db, id: number) {
  const row = await findPaymentOrder(db, id);
  if (!row) throw new DomainError('NOT_FOUND', `no payment order ${id}`);
  return row;
}

export function createPaymentOrder(db: Db, input: PaymentOrderInput, now: Date) {
  return inTransaction(db, async (trx) => {
    await getPlatformCompany(trx, input.companyId);
    if (!Number.isSafeInteger(input.amount) || input.amount < 0)
      throw new DomainError('NOT_ACCEPTABLE', 'amount must be a whole number of minor units >= 0');
    if (input.clientId != null) {
      const client = await findClientId(trx, input.clientId);
      if (!client) throw new DomainError('CLIENT_NOT_FOUND', `no client ${input.clientId}`);
    }
    const at = now.toISOString();
    const isPaid = input.isPaid ? 1 : 0;
    const order = await insertPaymentOrder(trx, {
      companyId: input.companyId,
      clientId: input.clientId ?? null,
      amount: input.amount,
      currency: normalizeCurrency(input.currency),
      isPaid,
      paidAt: isPaid ? at : null,
      createdAt: at,
      updatedAt: at,
    });
    for (const [kind, ids] of [
      ['parcel', input.parcelIds ?? []],
      ['cargo', input.cargoIds ?? []],
    ] as const) {
      for (const id of ids) {
        const item = await findItemPaymentOrderId(trx, kind, id);
        if (!item)
          throw new DomainError(kind === 'parcel' ? 'PARCEL_NOT_FOUND' : 'CARGO_NOT_FOUND', `no ${kind} ${id}`);
        if (item.paymentOrderId !== null)
          throw new DomainError('NOT_ACCEPTABLE', `${kind} ${id} already has payment order ${item.paymentOrderId}`);
        await attachItemToPaymentOrder(trx, kind, id, { paymentOrderId: order.id, isPaid, at });
      }
    }
    return order;
  });
}

/** Marks an order paid, and every parcel and cargo item it covers. */
export function markPaymentOrderPaid(db: Db, id: number, now: Date) {
  return inTransaction(db, async (trx) => {
    const order = await getPaymentOrder(trx, id);
    if (order.isPaid) return order;
    const at = now.toISOString();
    return markPaymentOrderAndItemsPaid(trx, id, at);
  });
}
