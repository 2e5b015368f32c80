/**
 * Whose subscriptions, events and deliveries these are: a Locker API company (cuid2 id) or a
 * platform company (integer id). Both are stored as `ownerKind` + `companyId` text
 * (migration 027); every read and write of webhook rows goes through `ownedBy`, so one
 * company never reaches another's rows, whatever the kind.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { WebhookOwnerKind } from './webhook-schema.ts';

export type WebhookOwner = { kind: 'LOCKER'; companyId: string } | { kind: 'PLATFORM'; companyId: number };

export const lockerOwner = (companyId: string): WebhookOwner => ({ kind: 'LOCKER', companyId });
export const platformOwner = (companyId: number): WebhookOwner => ({ kind: 'PLATFORM', companyId });

/** The two columns naming the owner. */
export const ownerColumns = (o: WebhookOwner): { ownerKind: WebhookOwnerKind; companyId: string } => ({
  ownerKind: o.kind,
  companyId: String(o.companyId),
});

/** `.where(ownedBy(owner))`: a query of webhook_subscription or webhook_event kept to the owner's rows. */
export function ownedBy(o: WebhookOwner) {
  const c = ownerColumns(o);
  return (eb: ExpressionBuilder<any, any>) =>
    eb.and([eb('ownerKind', '=', c.ownerKind), eb('companyId', '=', c.companyId)]);
}

/**
 * `ownedBy` for a Locker API company named by a column of the outer query (`ref`, e.g.
 * 'o.companyId'): the same rule, for a subquery that reads the subscriptions beside the order.
 */
export function lockerOwnedByRef(ref: string) {
  return (eb: ExpressionBuilder<any, any>) =>
    eb.and([eb('ownerKind', '=', sql.lit('LOCKER')), eb('companyId', '=', eb.ref(ref))]);
}
