import type { Response } from 'express';

/**
 * The answer, written directly: Express's res.json adds a freshness check and header
 * bookkeeping that an API without ETags never uses, on every request of the hottest reads.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  // writeHead with the headers spares setHeader's per-call validation (headers already set, such as the rate limit's, are kept).
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
