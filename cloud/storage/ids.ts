/**
 * Record ids in the cuid2 shape (a lowercase letter, then 23 lowercase letters and digits),
 * drawn from the system CSPRNG. @paralleldrive/cuid2's createId() hashes with SHA-3 in
 * JavaScript and costs ~300 µs an id on our 2-core machines — six ids per created order made
 * it the largest cost of POST /order/create. These ids carry ~119 random bits, leak nothing
 * (no time or host in them) and pass cuid2's own isCuid() check (see test/cloud/ids.test.ts).
 */
import crypto from 'node:crypto';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function randomByte(): number {
  if (offset >= pool.length) {
    pool = crypto.randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++];
}

/** A uniform draw from an alphabet: bytes past the largest multiple of its size are rejected. */
function draw(alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  for (;;) {
    const b = randomByte();
    if (b < limit) return alphabet[b % alphabet.length];
  }
}

export function newId(length = 24): string {
  let id = draw(LETTERS);
  for (let i = 1; i < length; i++) id += draw(ALPHANUMERIC);
  return id;
}
