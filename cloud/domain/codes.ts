/**
 * Four-digit locker codes. A code typed at a locker's keypad must name exactly one order, so
 * the three codes of an order are distinct from each other and from every live code of the
 * same locker (the spec only asks for uniqueness per type; this is stricter and implies it).
 */
import crypto from 'node:crypto';
import { DomainError } from './errors.ts';

export const CODE_SPACE = 10_000;
export type RandomInt = (maxExclusive: number) => number;
export const secureRandomInt: RandomInt = (max) => crypto.randomInt(max);

export const formatCode = (n: number) => String(n).padStart(4, '0');

export function pickCodes(inUse: ReadonlySet<string>, count: number, randomInt: RandomInt = secureRandomInt): string[] {
  const free = CODE_SPACE - inUse.size;
  if (free < count) throw new DomainError('CODES_EXHAUSTED', 'no free codes left at this locker');
  const picked = new Set<string>();
  // Rejection sampling stays fast while the locker uses a small share of the space;
  // past that, draw from the explicit list of free codes.
  if (inUse.size < CODE_SPACE / 2) {
    while (picked.size < count) {
      const code = formatCode(randomInt(CODE_SPACE));
      if (!inUse.has(code)) picked.add(code);
    }
    return [...picked];
  }
  const candidates: string[] = [];
  for (let n = 0; n < CODE_SPACE; n++) {
    const code = formatCode(n);
    if (!inUse.has(code)) candidates.push(code);
  }
  while (picked.size < count) picked.add(candidates[randomInt(candidates.length)]);
  return [...picked];
}
