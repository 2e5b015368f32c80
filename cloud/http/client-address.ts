/**
 * The address a client is counted by. IPv4 as it is; IPv6 by its /64, since one host usually
 * holds a whole /64 and could otherwise open a fresh window with every address in it. `req.ip`
 * follows Express's `trust proxy` setting, so behind a proxy that setting decides whose address
 * this is.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

export const addressOf = (req: Request): string => addressKey(req.ip);

export function addressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return 'unknown';
  const bare = ip.split('%')[0].toLowerCase();
  // An IPv4 client of a dual-stack socket arrives as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros. */
function ipv6Groups(ip: string): string[] {
  const part = (s: string) => (s ? s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const [head, tail] = ip.split('::');
  const h = part(head);
  const t = tail === undefined ? [] : part(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
