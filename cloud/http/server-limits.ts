/**
 * The HTTP server and its own limits (docs/security.md, "HTTP limits"). Node's defaults let a
 * connection that sends nothing live ~70 s (headersTimeout 60 s, checked every 30 s) and a slow
 * body 300 s: with a service's usual 1,024 descriptors, about 1,000 idle sockets made every
 * request fail. Here headers and whole requests have short deadlines checked every second,
 * connections are capped in total and per client address, and every refusal is logged (one
 * line, then a summary per window) and answered in the spec's error shape where a socket can
 * still carry an answer.
 */
import fs from 'node:fs';
import http, { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.ts';
import { addressKey } from './client-address.ts';
import { RefusalLog } from './refusal-log.ts';

export interface HttpLimits {
  /** a request's headers must have arrived this long after its first byte (or the connection's start) */
  headersTimeoutMs: number;
  /** a whole request, body included, must have arrived within this */
  requestTimeoutMs: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutMs: number;
  /** open connections at most; more are closed unanswered (0: no cap) */
  maxConnections: number;
  /** open connections per client address (IPv4, or IPv6 /64) at most; more are answered 429 and closed (0: no cap) */
  maxConnectionsPerAddress: number;
}

export function createHttpServer(app: http.RequestListener, limits: HttpLimits, logger: Logger): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Deadlines are only as sharp as this check (Node's default is every 30 s).
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 2))),
    },
    app,
  );
  const refusals = new RefusalLog(logger);
  server.on('close', () => refusals.close());

  if (limits.maxConnections > 0) {
    // Over the cap Node closes the connection before any HTTP work: the cheapest refusal there is.
    server.maxConnections = limits.maxConnections;
    server.on('drop', (data?: { remoteAddress?: string }) =>
      refusals.refused('http connection refused', 'HTTP_MAX_CONNECTIONS', addressKey(data?.remoteAddress), {
        cap: limits.maxConnections,
      }),
    );
  }
  if (limits.maxConnectionsPerAddress > 0) capPerAddress(server, limits.maxConnectionsPerAddress, refusals);

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const answer = answerTo(err);
    if (answer.status === 408)
      refusals.refused(
        'http request timed out',
        'HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS',
        addressKey((socket as Socket).remoteAddress),
      );
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !response?.headersSent)
      socket.write(rawAnswer(answer.status, answer.message, answer.code));
    socket.destroy();
  });
  warnOnLowDescriptorLimit(limits, logger);
  return server;
}

function capPerAddress(server: http.Server, cap: number, refusals: RefusalLog): void {
  // Entries exist only for open connections, so the map is bounded by the connections themselves.
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress);
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    if (count > cap) {
      refusals.refused('http connection refused', 'HTTP_MAX_CONNECTIONS_PER_ADDRESS', address, { cap });
      // Nothing more is read, so no request of this connection ever reaches the app.
      socket.pause();
      // The spec's rate-limit answer: the client may retry once one of its connections is closed.
      socket.end(rawAnswer(429, 'Too Many Requests', 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '1' }));
      socket.destroySoon();
    }
  });
}

function answerTo(err: NodeJS.ErrnoException): { status: number; message: string; code: string } {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, message: 'Request headers or body not received in time', code: 'REQUEST_TIMEOUT' };
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, message: 'Request line and headers are too large', code: 'HEADER_OVERFLOW' };
  return { status: 400, message: 'Malformed HTTP request', code: 'BAD_REQUEST' };
}

/** An answer written straight to a socket, outside Express: the spec's error body, then close. */
function rawAnswer(status: number, message: string, code: string, headers: Record<string, string> = {}): string {
  const body = JSON.stringify({ statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, code });
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`;
}

/**
 * Connections, the database, the broker's lockers and files all draw on one descriptor limit
 * (systemd's LimitNOFILE, often 1,024): say so at start when the HTTP cap alone could use most of it.
 */
function warnOnLowDescriptorLimit(limits: HttpLimits, logger: Logger): void {
  const soft = descriptorLimit();
  if (soft === undefined || limits.maxConnections === 0 || soft >= limits.maxConnections * 2) return;
  logger.warn('file descriptor limit is low for the HTTP connection cap: raise LimitNOFILE (docs/security.md)', {
    descriptorLimit: soft,
    httpMaxConnections: limits.maxConnections,
  });
}

function descriptorLimit(): number | undefined {
  try {
    const line = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}
