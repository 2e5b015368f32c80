/**
 * One JSON POST with node:http, so the request carries exactly the headers we name (fetch
 * would add user-agent, accept, sec-fetch-mode…; the spec says "no other headers").
 */
import http from 'node:http';
import https from 'node:https';

export interface PostResult {
  status?: number;
  error?: string;
  latencyMs: number;
}

export type PostJson = (url: string, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<PostResult>;

export const postJson: PostJson = (url, body, headers, timeoutMs) => {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'latencyMs'>): PostResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done({ error: 'invalid URL' }));
    }
    const lib = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
    if (!lib) return resolve(done({ error: `unsupported protocol ${target.protocol}` }));
    const req = lib.request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        agent: false,
        timeout: timeoutMs,
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
    req.on('error', (err) => resolve(done({ error: err.message })));
    req.end(body);
  });
};
