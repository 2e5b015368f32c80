import crypto from 'node:crypto';
import { ENROLMENT_ALPHABET, ENROLMENT_CODE_LENGTH } from '../../shared/enrolment.ts';

/** A fresh code as shown to the operator: XXXX-XXXX (about 40 bits, drawn uniformly). */
export function newEnrolmentCode(): string {
  let code = '';
  for (let i = 0; i < ENROLMENT_CODE_LENGTH; i++)
    code += ENROLMENT_ALPHABET[crypto.randomInt(ENROLMENT_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The digest stored and looked up. A plain SHA-256, not scrypt: the code must be found by its
 * digest, it lives minutes to hours, is used once, and guessing it online is rate-limited.
 */
export function enrolmentCodeHash(normalised: string): string {
  return crypto
    .createHash('sha256')
    .update(`locker-enrolment:${normalised.replace(/-/g, '').toUpperCase()}`)
    .digest('hex');
}
