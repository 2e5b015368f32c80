/** A real local HTTP receiver that records what it is sent and answers as told. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Behaviour = { status: number } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  behave(b: Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(initial: Behaviour = { status: 200 }): Promise<Receiver> {
  let behaviour = initial;
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      if (behaviour === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    behave: (b) => (behaviour = b),
    close: () =>
      new Promise((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Polls until the check passes or the deadline is reached (then the last error is thrown). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
