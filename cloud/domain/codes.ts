/**
 * Four-digit locker codes, drawn by the rule the agent matches them by (shared/locker-codes.ts):
 * a DOWN code differs from the locker's live DOWN codes (the spec's per-type rule); an UP or
 * SUBTRACT code differs from its live UP and SUBTRACT codes (no code opens two parcels' cells);
 * the three codes of an order differ from each other; and while the locker has such codes left,
 * each also differs from the live codes of the other space, so that a typed code names one order.
 */
import crypto from 'node:crypto';
import { codeSpace, type CodeSpace } from '../../shared/locker-codes.ts';
import { DomainError } from './errors.ts';
import { CODE_TYPES, type CodeType } from './order-states.ts';

export const CODE_SPACE = 10_000;
export type RandomInt = (maxExclusive: number) => number;
export const secureRandomInt: RandomInt = (max) => crypto.randomInt(max);

export const formatCode = (n: number) => String(n).padStart(4, '0');

/** The live codes of a locker, by type: those of its active CREATED and DELIVERED orders. */
export type LiveCodes = Record<CodeType, ReadonlySet<string>>;
export type OrderCodes = Record<CodeType, string>;

export const noLiveCodes = (): LiveCodes => ({ DOWN: new Set(), UP: new Set(), SUBTRACT: new Set() });

/** A few random draws find a free code while the space is far from full; past that, the free codes are listed. */
const RANDOM_TRIES = 32;

/** The live codes of each keypad space. */
function bySpace(live: LiveCodes): Record<CodeSpace, Set<string>> {
  const out: Record<CodeSpace, Set<string>> = { PLACE: new Set(), OPEN: new Set() };
  for (const type of CODE_TYPES) for (const code of live[type]) out[codeSpace(type)].add(code);
  return out;
}

/** Three codes for a new order at a locker; CODES_EXHAUSTED when a space has too few codes left. */
export function pickOrderCodes(live: LiveCodes, randomInt: RandomInt = secureRandomInt): OrderCodes {
  const spaces = bySpace(live);
  // Free codes of each space, and codes free in at least one, as the draws go on: a draw may
  // not take a code the types still to draw would need (DOWN preferring a code outside the
  // opening space must not take the last two that UP and SUBTRACT need there).
  const free = { PLACE: CODE_SPACE - spaces.PLACE.size, OPEN: CODE_SPACE - spaces.OPEN.size };
  let freeAny = CODE_SPACE - [...spaces.PLACE].filter((c) => spaces.OPEN.has(c)).length;
  const need = { PLACE: 1, OPEN: 2 };
  if (free.PLACE < need.PLACE) throw new DomainError('CODES_EXHAUSTED', 'no free DOWN code left at this locker');
  if (free.OPEN < need.OPEN)
    throw new DomainError('CODES_EXHAUSTED', 'no free UP and SUBTRACT codes left at this locker');
  if (freeAny < need.PLACE + need.OPEN) throw new DomainError('CODES_EXHAUSTED', 'no free codes left at this locker');
  const picked = new Set<string>();
  const out = {} as OrderCodes;
  for (const type of CODE_TYPES) {
    const space = codeSpace(type);
    const other: CodeSpace = space === 'PLACE' ? 'OPEN' : 'PLACE';
    need[space]--;
    const takes = (c: string) => ({ PLACE: spaces.PLACE.has(c) ? 0 : 1, OPEN: spaces.OPEN.has(c) ? 0 : 1 });
    const leavesEnough = (c: string) => {
      const t = takes(c);
      return (
        free.PLACE - t.PLACE >= need.PLACE && free.OPEN - t.OPEN >= need.OPEN && freeAny - 1 >= need.PLACE + need.OPEN
      );
    };
    const code = draw(
      (c) => !spaces[space].has(c) && !picked.has(c) && leavesEnough(c),
      (c) => !spaces[other].has(c),
      randomInt,
    );
    if (code === undefined) throw new DomainError('CODES_EXHAUSTED', `no free ${type} code left at this locker`);
    const t = takes(code);
    free.PLACE -= t.PLACE;
    free.OPEN -= t.OPEN;
    freeAny--;
    picked.add(code);
    out[type] = code;
  }
  return out;
}

/** Draw rounds of pickFreeCodes before the whole list of live codes is read. */
const FREE_DRAW_ROUNDS = 3;

/**
 * The first round of pickFreeCodes: one code for each type, distinct. A caller that can ask
 * which of them are live together with its other reads (an order's creation does, in the read
 * that admits the order) passes them and the answer to pickFreeCodes as its first round.
 */
export function firstCodeDraw(randomInt: RandomInt = secureRandomInt): string[] {
  const drawn = new Set<string>();
  for (let i = 0; i < CODE_TYPES.length; i++) drawn.add(formatCode(randomInt(CODE_SPACE)));
  return [...drawn];
}

export interface CodeDrawRound {
  drawn: readonly string[];
  /** which of `drawn` the locker's live codes use, in either space */
  live: ReadonlySet<string>;
}

/**
 * The common case of pickOrderCodes without the locker's whole list of live codes: codes drawn
 * at random and kept, in the order drawn, when no live code of the locker uses them in either
 * space (`liveAmong` answers which of a few codes are live), which is the draw pickOrderCodes
 * itself prefers. The first round draws the three codes only (firstCodeDraw; `first` when the
 * caller has drawn and asked already); a code found live is replaced by more draws in the next
 * round. Undefined when the draws keep finding live codes (a crowded locker): pickOrderCodes
 * then decides over the whole list, and its rules hold either way.
 */
export async function pickFreeCodes(
  liveAmong: (codes: string[]) => Promise<ReadonlySet<string>>,
  randomInt: RandomInt = secureRandomInt,
  first?: CodeDrawRound,
): Promise<OrderCodes | undefined> {
  const kept: string[] = [];
  for (let round = 0; round < FREE_DRAW_ROUNDS && kept.length < CODE_TYPES.length; round++) {
    let drawn: readonly string[];
    let live: ReadonlySet<string>;
    if (round === 0) {
      drawn = first?.drawn ?? firstCodeDraw(randomInt);
      live = first?.live ?? (await liveAmong([...drawn]));
    } else {
      // Later rounds draw four for each missing code: the locker was busier than the first round hoped.
      const more = new Set<string>();
      for (let i = 0; i < 4 * (CODE_TYPES.length - kept.length); i++) {
        const code = formatCode(randomInt(CODE_SPACE));
        if (!kept.includes(code)) more.add(code);
      }
      drawn = [...more];
      live = await liveAmong([...drawn]);
    }
    for (const code of drawn) if (!live.has(code) && kept.length < CODE_TYPES.length) kept.push(code);
  }
  if (kept.length < CODE_TYPES.length) return undefined;
  return Object.fromEntries(CODE_TYPES.map((type, i) => [type, kept[i]])) as OrderCodes;
}

/** Which of an order's codes may not stay as they are at a locker with these live codes (a move). */
export function clashingCodes(codes: OrderCodes, live: LiveCodes): CodeType[] {
  const spaces = bySpace(live);
  return CODE_TYPES.filter((type) => spaces[codeSpace(type)].has(codes[type]));
}

function draw(
  allowed: (c: string) => boolean,
  preferred: (c: string) => boolean,
  randomInt: RandomInt,
): string | undefined {
  for (let i = 0; i < RANDOM_TRIES; i++) {
    const code = formatCode(randomInt(CODE_SPACE));
    if (allowed(code) && preferred(code)) return code;
  }
  const best: string[] = [];
  const rest: string[] = [];
  for (let n = 0; n < CODE_SPACE; n++) {
    const code = formatCode(n);
    if (allowed(code)) (preferred(code) ? best : rest).push(code);
  }
  const pool = best.length ? best : rest;
  return pool.length ? pool[randomInt(pool.length)] : undefined;
}
