/**
 * One JSON POST with node:http, so the request carries exactly the headers we name (fetch
 * would add user-agent, accept, sec-fetch-mode…; the spec says "no other headers").
 *
 * `guardedPost` puts the outbound-target rule (domain/outbound-targets.ts) in front of it: the
 * host is resolved, every address it resolves to is checked, and the connection goes to an
 * address that was checked (a custom `lookup`), so a name cannot resolve to a public address
 * for the check and to 169.254.169.254 for the connection (DNS rebinding). Redirects are never
 * followed, so a receiver cannot send the request on elsewhere.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { hostOf, parseAddress, refusedAddress, type TargetPolicy } from '../domain/outbound-targets.ts';

export interface PostResult {
  status?: number;
  error?: string;
  latencyMs: number;
}

export interface PostOptions {
  /** resolves the URL's host for the connection (guardedPost pins it to a checked address) */
  lookup?: LookupFunction;
}

/** A pool of kept-alive connections (keepAlivePost); without one, every POST opens its own. */
interface Agents {
  http: http.Agent;
  https: https.Agent;
}

export type PostJson = (
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  options?: PostOptions,
) => Promise<PostResult>;

export const postJson: PostJson = (url, body, headers, timeoutMs, options = {}) =>
  send(undefined, url, body, headers, timeoutMs, options);

/** A PostJson over kept-alive connections, and the means to close them when its sender stops. */
export interface PooledPost {
  post: PostJson;
  /** closes the idle connections; those in use close when their answer is in */
  destroy(): void;
}

/**
 * POSTs over connections kept alive to each receiver: a new TCP connection (and TLS handshake)
 * per event cost more than the event. At most `maxSocketsPerOrigin` connections to one origin:
 * the senders keep their own sends to one origin within that bound (claim-loop.ts), so a
 * request never waits in the agent's queue with its timeout running. Idle connections close
 * after `idleMs`, before a receiver's usual keep-alive timeout (Node: 5 s) closes them under a request.
 */
export function keepAlivePost(maxSocketsPerOrigin: number, idleMs = 4_000): PooledPost {
  const options = {
    keepAlive: true,
    maxSockets: maxSocketsPerOrigin,
    maxFreeSockets: maxSocketsPerOrigin,
    timeout: idleMs,
    scheduling: 'lifo' as const,
  };
  const agents: Agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    post: (url, body, headers, timeoutMs, postOptions = {}) => send(agents, url, body, headers, timeoutMs, postOptions),
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function send(
  agents: Agents | undefined,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  options: PostOptions,
  retried = false,
): Promise<PostResult> {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'latencyMs'>): PostResult => ({
    ...r,
    latencyMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done({ error: 'invalid URL' }));
    }
    const lib = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
    if (!lib) return resolve(done({ error: `unsupported protocol ${target.protocol}` }));
    const agent = agents ? (lib === https ? agents.https : agents.http) : false;
    const req = lib.request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        agent,
        timeout: timeoutMs,
        ...(options.lookup ? { lookup: options.lookup } : {}),
      },
      (res) => {
        // The answer's body is unused; drain it so the socket is released.
        res.resume();
        res.on('end', () => resolve(done({ status: res.statusCode })));
        res.on('error', (err) => resolve(done({ status: res.statusCode, error: err.message })));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the receiver closed just as we reused it: the request never
      // reached it (the reset came before any answer), so it goes once more on a new connection.
      if (req.reusedSocket && !retried && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        const left = Math.max(1, timeoutMs - Math.round(performance.now() - started));
        return resolve(
          send(agents, url, body, headers, left, options, true).then((r) => ({
            ...r,
            latencyMs: Math.round(performance.now() - started),
          })),
        );
      }
      resolve(done({ error: err.message }));
    });
    req.end(body);
  });
}

/** Every address a host name resolves to (dns.lookup: the system resolver, /etc/hosts included). */
export type ResolveAll = (host: string) => Promise<dns.LookupAddress[]>;
export const resolveAll: ResolveAll = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * `post` behind the outbound-target rule. A refused target is not contacted: its result is an
 * error that names the host and the address (the delivery log and the log line show it).
 */
export function guardedPost(
  policy: TargetPolicy,
  post: PostJson = postJson,
  resolve: ResolveAll = resolveAll,
): PostJson {
  return async (url, body, headers, timeoutMs, options) => {
    const started = performance.now();
    const refused = (why: string): PostResult => ({
      error: `target refused: ${why}`,
      latencyMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return post(url, body, headers, timeoutMs, options);
    }
    const host = hostOf(target);
    // Hosts the operator listed by name are reached wherever they resolve to.
    if (policy.hosts.has(host)) return post(url, body, headers, timeoutMs, options);
    if (parseAddress(host)) {
      const why = refusedAddress(policy, host);
      return why ? refused(why) : post(url, body, headers, timeoutMs, options);
    }
    let addresses: dns.LookupAddress[];
    try {
      addresses = await withTimeout(resolve(host), timeoutMs, `no address for ${host} within ${timeoutMs} ms`);
    } catch (err) {
      return { error: (err as Error).message, latencyMs: Math.round(performance.now() - started) };
    }
    if (addresses.length === 0)
      return { error: `no address for ${host}`, latencyMs: Math.round(performance.now() - started) };
    for (const a of addresses) {
      const why = refusedAddress(policy, a.address);
      if (why) return refused(`${host} resolves to ${why}`);
    }
    const [first] = addresses;
    const rest = Math.max(1, timeoutMs - Math.round(performance.now() - started));
    const result = await post(url, body, headers, rest, { ...options, lookup: pinnedLookup(first) });
    return { ...result, latencyMs: Math.round(performance.now() - started) };
  };
}

/** A `lookup` that answers the one checked address, in whichever form the caller asks for. */
function pinnedLookup(address: dns.LookupAddress): LookupFunction {
  return (_host, options, callback) => {
    if (options?.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
