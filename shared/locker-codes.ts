/**
 * What a four-digit code typed at a locker's keypad does: the one rule the cloud draws codes
 * by and the agent matches them by.
 *
 * The spec asks only that codes of one type do not repeat among a locker's active orders. Two
 * kinds of code act at the keypad: DOWN places a parcel (a CREATED order), UP and SUBTRACT open
 * a placed parcel's cell (a DELIVERED order). So the cloud keeps
 * - DOWN codes unique among the locker's live DOWN codes (the spec's rule), and
 * - UP and SUBTRACT codes unique among the locker's live UP and SUBTRACT codes together
 *   (stricter than the spec: no code ever opens two parcels' cells),
 * and prefers, as long as the locker has such codes left, codes that differ from the live
 * codes of the other space too. Only past that (thousands of live orders at one locker) can one
 * code be both the DOWN of a CREATED order and the UP or SUBTRACT of a DELIVERED one; then the
 * placement wins: it opens an empty cell, never someone else's parcel, and the pickup works
 * again once that order is placed or expires.
 */
import type { CodeKind, OrderStatus } from './mqtt/schemas.ts';

/** The two keypad spaces: codes that place a parcel, codes that open a placed parcel's cell. */
export type CodeSpace = 'PLACE' | 'OPEN';

export const codeSpace = (kind: CodeKind): CodeSpace => (kind === 'DOWN' ? 'PLACE' : 'OPEN');

/** A code acts only at its step: DOWN while the order awaits its parcel, UP and SUBTRACT while the parcel is in. */
export const actsNow = (kind: CodeKind, status: OrderStatus): boolean =>
  kind === 'DOWN' ? status === 'CREATED' : status === 'DELIVERED';

/** Of the orders a typed code names, the one it acts on: a placement first, else the one placed parcel it opens. */
export function chooseByCode<M extends { kind: CodeKind; order: { status: OrderStatus } }>(
  matches: readonly M[],
): M | undefined {
  return (
    matches.find((m) => m.kind === 'DOWN' && actsNow(m.kind, m.order.status)) ??
    matches.find((m) => m.kind !== 'DOWN' && actsNow(m.kind, m.order.status))
  );
}
