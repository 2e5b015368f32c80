/** Track codes of platform parcels: given by the caller (unique) or drawn here. */
import { secureRandomInt, type RandomInt } from '../codes.ts';

/** No look-alikes (0/O, 1/I/L), so a code read out over the phone survives. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** `PL` and 10 characters: ~49 bits, so a clash is rare and simply drawn again. */
export function newTrackCode(randomInt: RandomInt = secureRandomInt): string {
  let code = 'PL';
  for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}
