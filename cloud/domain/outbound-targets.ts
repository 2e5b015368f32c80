/**
 * Where the cloud may send outbound requests (webhooks, company notifications). A company
 * administrator chooses a webhook's URL: without this rule they could make the cloud POST to the
 * cloud provider's metadata service (169.254.169.254), to its own loopback services, or into the
 * operator's private network. Public addresses are allowed; loopback only in development;
 * private, link-local and reserved ones only when the operator lists them.
 *
 * Pure rules on address text: no DNS here. The sender resolves names and checks every address
 * (events/http-post.ts); saving a webhook checks what the URL itself says.
 */

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved';

export interface TargetPolicy {
  /** loopback (127.0.0.0/8, ::1, localhost) allowed: development */
  allowLoopback: boolean;
  /** private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) allowed */
  allowPrivate: boolean;
  /** host names allowed whatever they resolve to (lower-case, no trailing dot) */
  hosts: ReadonlySet<string>;
  /** addresses and ranges allowed whatever their kind */
  ranges: readonly Range[];
}

/** Everything public, nothing else: the default when no configuration is given. */
export const STRICT_TARGETS: TargetPolicy = { allowLoopback: false, allowPrivate: false, hosts: new Set(), ranges: [] };

/** An address range: the first `bits` bits of `bytes` (4 bytes for IPv4, 16 for IPv6). */
export interface Range {
  bytes: Uint8Array;
  bits: number;
}

/** Parses IPv4 dotted-quad or IPv6 text (brackets allowed) to bytes; undefined when it is neither. */
export function parseAddress(text: string): Uint8Array | undefined {
  const ip = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return parseV4(ip) ?? parseV6(ip);
}

function parseV4(ip: string): Uint8Array | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i])) return undefined;
    const n = Number(parts[i]);
    if (n > 255) return undefined;
    bytes[i] = n;
  }
  return bytes;
}

function parseV6(ip: string): Uint8Array | undefined {
  // A zone (fe80::1%eth0) names an interface of this host: the address is what counts.
  const text = ip.split('%')[0].toLowerCase();
  if (!/^[0-9a-f:.]+$/.test(text) || !text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseV4(piece);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!/^[0-9a-f]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...new Array(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (all its bits). */
export function parseRange(text: string): Range | undefined {
  const [ip, bitsText, ...rest] = text.split('/');
  if (rest.length) return undefined;
  const bytes = parseAddress(ip);
  if (!bytes) return undefined;
  const max = bytes.length * 8;
  if (bitsText === undefined) return { bytes, bits: max };
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) return undefined;
  return { bytes, bits: Number(bitsText) };
}

export function inRange(address: Uint8Array, range: Range): boolean {
  if (address.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const take = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((address[bit / 8] & mask) !== (range.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

const ranges = (kind: AddressKind, list: string[]) => list.map((r) => ({ kind, range: parseRange(r)! }));

/** Every range that is not the public internet, with the kind the refusal names. */
const SPECIAL = [
  ...ranges('loopback', ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128']), // 0.0.0.0 reaches this host on Linux
  ...ranges('private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7', 'fec0::/10']),
  ...ranges('link-local', ['169.254.0.0/16', 'fe80::/10']),
  ...ranges('reserved', [
    '192.0.0.0/24',
    '192.0.2.0/24',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/4',
    '240.0.0.0/4',
    'ff00::/8',
    '100::/64',
    '2001:db8::/32',
    '2001::/32',
  ]),
];

/** IPv6 forms that carry an IPv4 address: the IPv4 address is where the packet really goes. */
const V4_INSIDE_V6: Array<{ range: Range; at: number }> = [
  { range: parseRange('::ffff:0:0/96')!, at: 12 }, // IPv4-mapped
  { range: parseRange('64:ff9b::/96')!, at: 12 }, // NAT64
  { range: parseRange('::/96')!, at: 12 }, // IPv4-compatible (deprecated)
  { range: parseRange('2002::/16')!, at: 2 }, // 6to4
];

/** `::` and `::1` sit inside ::/96 but are IPv6's own unspecified and loopback addresses. */
const V6_OWN = parseRange('::/127')!;

export function classifyAddress(address: Uint8Array): AddressKind {
  if (address.length === 16 && !inRange(address, V6_OWN)) {
    for (const { range, at } of V4_INSIDE_V6)
      if (inRange(address, range)) return classifyAddress(address.slice(at, at + 4));
  }
  for (const { kind, range } of SPECIAL) if (inRange(address, range)) return kind;
  return 'public';
}

const ARTICLE: Record<AddressKind, string> = {
  public: 'a public',
  loopback: 'a loopback',
  private: 'a private',
  'link-local': 'a link-local',
  reserved: 'a reserved',
};

/** Why the policy refuses this address, or undefined when it may be reached; `shown` names it in the reason. */
export function refusedAddress(
  policy: TargetPolicy,
  addressText: string,
  shown = addressText.replace(/^\[|\]$/g, ''),
): string | undefined {
  const address = parseAddress(addressText);
  if (!address) return `${addressText} is not an address`;
  const kind = classifyAddress(address);
  if (kind === 'public') return undefined;
  if (policy.ranges.some((r) => inRange(address, r))) return undefined;
  if (kind === 'loopback' && policy.allowLoopback) return undefined;
  if (kind === 'private' && policy.allowPrivate) return undefined;
  return `${ARTICLE[kind]} address (${shown})`;
}

/** The URL's host as DNS and the policy see it: lower-case, no brackets, no trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * What saving a URL can check without DNS: a literal address, and the names that always mean
 * this host (`localhost`). Other names are checked when sent, after resolution. Whether the
 * text is an http(s) URL at all is the URL schema's business: such text is not refused here.
 */
export function refusedUrl(policy: TargetPolicy, text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const host = hostOf(url);
  if (policy.hosts.has(host)) return undefined;
  if (parseAddress(host)) return refusedAddress(policy, host);
  // RFC 6761: localhost names resolve to loopback, whatever a resolver says.
  if (isLocalhostName(host)) return refusedAddress(policy, '127.0.0.1', host);
  return undefined;
}

/** `WEBHOOK_ALLOW_HOSTS`: comma-separated host names, addresses and CIDR ranges. */
export function parseAllowList(text: string): { hosts: Set<string>; ranges: Range[]; errors: string[] } {
  const hosts = new Set<string>();
  const out: Range[] = [];
  const errors: string[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const range = parseRange(entry);
    if (range) out.push(range);
    else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry))
      hosts.add(entry.replace(/\.$/, ''));
    else errors.push(`"${raw.trim()}" is neither a host name, an address nor a CIDR range`);
  }
  return { hosts, ranges: out, errors };
}
