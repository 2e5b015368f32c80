/**
 * The `Locker-Signature` header, in the scheme Stripe made familiar: `t=<unix seconds>` and one
 * `v1=<hex HMAC-SHA256 of "t.body">` per secret that signs. While a secret is being rotated the
 * old and the new both sign, so a receiver that knows either accepts the delivery.
 */
import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'Locker-Signature';

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secrets: readonly string[], at: Date, body: string): string {
  const t = Math.floor(at.getTime() / 1000);
  return [`t=${t}`, ...secrets.map((s) => `v1=${signatureOf(s, t, body)}`)].join(',');
}

/** A new signing secret, shown to the company when it creates or rotates it. */
export const newSigningSecret = () => `whsec_${crypto.randomBytes(32).toString('base64url')}`;
