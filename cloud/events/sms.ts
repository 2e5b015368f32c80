/**
 * SMS to recipients behind one small interface. The log provider (default) writes a line per
 * message with the code masked — codes are recipient secrets and never reach logs; the HTTP
 * gateway provider posts `{ to, text }` to a configured URL with a bearer token.
 */
import type { Logger } from '../logger.ts';
import { postJson, type PostJson, type PostResult } from './http-post.ts';
import { maskCode } from '../../shared/mask.ts';

export interface SmsProvider {
  readonly name: string;
  send(to: string, text: string, secrets: string[]): Promise<PostResult>;
}

export { maskCode };
export const maskPhone = (phone: string) =>
  phone.length > 7 ? phone.slice(0, 5) + '*'.repeat(phone.length - 8) + phone.slice(-3) : '***';

export class LogSmsProvider implements SmsProvider {
  readonly name = 'log';
  constructor(private readonly logger: Logger) {}
  async send(to: string, text: string, secrets: string[]): Promise<PostResult> {
    let shown = text;
    for (const s of secrets) shown = shown.replaceAll(s, maskCode(s));
    this.logger.info('sms (log provider)', { to: maskPhone(to), text: shown });
    return { status: 200, latencyMs: 0 };
  }
}

export class HttpSmsProvider implements SmsProvider {
  readonly name = 'http';
  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly timeoutMs: number,
    private readonly post: PostJson = postJson,
  ) {}
  send(to: string, text: string): Promise<PostResult> {
    return this.post(
      this.url,
      JSON.stringify({ to, text }),
      this.token ? { authorization: `Bearer ${this.token}` } : {},
      this.timeoutMs,
    );
  }
}

/** `redirected`: the parcel is not in a cell yet, it now goes to this locker (a company's redirect). */
export function smsText(o: {
  lockerTitle: string;
  cellNumber: number | null;
  code: string;
  until: string | null;
  mapUrl: string;
  redirected?: boolean;
}): string {
  if (o.redirected)
    return `Your parcel now goes to locker "${o.lockerTitle}". Pickup code once it is there: ${o.code}. Map: ${o.mapUrl}`;
  const until = o.until ? ` until ${o.until.slice(0, 16).replace('T', ' ')} UTC` : '';
  const cell = o.cellNumber === null ? '' : `, cell ${o.cellNumber}`;
  return `Your parcel is in locker "${o.lockerTitle}"${cell}${until}. Pickup code: ${o.code}. Map: ${o.mapUrl}`;
}

/** A return's sender: where to drop it off and the code that opens a cell for it. */
export function dropOffSmsText(o: { lockerTitle: string; code: string; mapUrl: string }): string {
  return `Drop your return off at locker "${o.lockerTitle}". Drop-off code: ${o.code}. Map: ${o.mapUrl}`;
}
