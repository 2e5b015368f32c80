/** autocannon runs: throughput at N connections, and latency at a fixed request rate. */
import autocannon from 'autocannon';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  /** a path, or a function giving the next path (rotates over sample ids) */
  path: string | (() => string);
  headers?: Record<string, string>;
  body?: string | (() => string);
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function measure(baseUrl: string, req: LoadRequest, opts: { connections: number; seconds: number; rate?: number }): Promise<Figures> {
  const path = typeof req.path === 'function' ? req.path : () => req.path as string;
  const body = typeof req.body === 'function' ? req.body : () => req.body as string | undefined;
  const result = await autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: [
      {
        method: req.method ?? 'GET',
        headers: { ...(req.headers ?? {}), ...(req.body ? { 'content-type': 'application/json' } : {}) },
        setupRequest: (r: any) => ({ ...r, path: path(), ...(req.body ? { body: body() } : {}) }),
      },
    ],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * The run in the middle, ordered by `by`: on a shared machine one run may collide with other
 * work; the median of a few is what the endpoint does, without picking the best.
 */
export function median<T>(runs: T[], by: (run: T) => number): T {
  return [...runs].sort((a, b) => by(a) - by(b))[Math.floor((runs.length - 1) / 2)];
}

export function table(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join('  ');
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}
