/**
 * A local HTTP proxy in front of the real cloud that injects the faults a client meets on real
 * networks, request by request: a connection cut before the request arrives, an answer made up
 * (502, 429 with Retry-After), or the request served and its answer lost on the way back.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  /** the connection is cut before the request reaches the cloud */
  | { kind: 'drop' }
  /** the proxy answers itself; the cloud never sees the request */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  /** the cloud serves the request; its answer is lost (connection cut) */
  | { kind: 'lose-answer' };

export interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  fault?: Fault['kind'];
}

export interface FaultProxy {
  url: string;
  seen: Seen[];
  /** Faults for the next requests matching `match`, one per request, in order. */
  plan(match: (req: { method: string; path: string }) => boolean, faults: Fault[]): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const plans: Array<{ match: (req: { method: string; path: string }) => boolean; faults: Fault[] }> = [];
  const seen: Seen[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method!, path: req.url! };
      const plan = plans.find((p) => p.faults.length > 0 && p.match(request));
      const fault = plan?.faults.shift();
      seen.push({ ...request, headers: req.headers, fault: fault?.kind });
      if (fault?.kind === 'drop') return void req.socket.destroy();
      if (fault?.kind === 'status') {
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        return void res.end(
          JSON.stringify(
            fault.body ?? { statusCode: fault.status, error: http.STATUS_CODES[fault.status], message: 'injected' },
          ),
        );
      }
      const headers = { ...req.headers, host: upstream.host };
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            if (fault?.kind === 'lose-answer') return void req.socket.destroy();
            res.writeHead(up.statusCode!, up.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      forward.on('error', () => req.socket.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    plan: (match, faults) => void plans.push({ match, faults: [...faults] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
