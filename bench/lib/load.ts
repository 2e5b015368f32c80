/**
 * Load runs: throughput at N connections (autocannon), and latency at a fixed request rate
 * (an evenly paced, open-loop sender of our own, see `paced`).
 */
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { probeAt, selfProbe, whileProbed, type ProcessFigures } from './server-probe.ts';

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
  /** the server's event-loop delay and GC pauses over this run (fixed-rate runs) */
  server?: ProcessFigures;
  /** the same for the load generator (this process): its stalls are counted in the latency too */
  client?: ProcessFigures;
}

export async function measure(
  baseUrl: string,
  req: LoadRequest,
  opts: { connections: number; seconds: number; rate?: number },
): Promise<Figures> {
  if (opts.rate) return paced(baseUrl, req, { rate: opts.rate, seconds: opts.seconds });
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
 * Latency at a fixed rate, as wrk2 measures it: request k is due at start + k/rate (every 5 ms
 * at 200 req/s) whatever happened to the others, and its latency counts from when it was due,
 * so a stalled server is charged for the requests it made wait. autocannon's `overallRate`
 * instead lets each connection send its share of a second back to back at the top of every
 * second: 200 requests arrive as one burst, and p99 then measures how long that burst takes to
 * drain rather than what a request at that rate waits.
 */
export async function paced(
  baseUrl: string,
  req: LoadRequest,
  opts: { rate: number; seconds: number },
): Promise<Figures> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const nextPath = typeof req.path === 'function' ? req.path : () => req.path as string;
  const nextBody = typeof req.body === 'function' ? req.body : () => req.body as string | undefined;
  const total = Math.round(opts.rate * opts.seconds);
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const body = req.body ? nextBody() : undefined;
      const headers = {
        ...(req.headers ?? {}),
        ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
      };
      const r = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: req.method ?? 'GET',
          path: nextPath(),
          headers,
          timeout: 10_000,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
            resolve();
          });
        },
      );
      r.on('timeout', () => r.destroy(new Error('timeout')));
      r.on('error', () => {
        errors++;
        resolve();
      });
      r.end(body);
    });
  const started = performance.now() + 20;
  const inFlight: Array<Promise<void>> = [];
  for (let k = 0; k < total; k++) {
    const due = started + k * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(due));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length
      ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10
      : NaN;
  return { rps: Math.round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99), errors, non2xx };
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
  return [
    line(cols),
    line(width.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(cols.map((c) => String(r[c])))),
  ].join('\n');
}

export interface Case {
  name: string;
  url: string;
  req: LoadRequest;
}

export interface CaseResult {
  name: string;
  throughput: Figures;
  fixedRate: Figures;
  adjacentBare: Figures;
  /** every repeat, when there were several (the figures above are their medians) */
  runs?: { pairs: Array<{ throughput: Figures; adjacentBare: Figures }>; fixedRate: Figures[] };
}

/** The pause between a throughput run and the fixed-rate run after it (see measureCases). */
const SETTLE_MS = 1_000;

/**
 * BENCH_REPEATS: how many times each measurement runs; the median is kept (default 6). Six short
 * pairs rather than three long ones: this machine's speed drifts within seconds (the bare
 * endpoint alone went from 4,800 to 8,400 req/s in one minute), so two runs taken closer
 * together compare like with like, and the median of six moves less with one unlucky pair
 * (three pairs of the same build gave medians of 80% and 68% of bare in two runs).
 */
export const REPEATS = Math.max(1, Number(process.env.BENCH_REPEATS ?? 6));

/** BENCH_SECONDS: the length of each measured run (default 5; see REPEATS). */
export const SECONDS = Math.max(1, Number(process.env.BENCH_SECONDS ?? 5));

/**
 * BENCH_WARMUP_SECONDS: an unmeasured run of each case first (default 3). A server's first
 * seconds on an endpoint run unoptimized code; without this the first of the repeats measured
 * the JIT, not the endpoint (one order-read pair came out at 43% of bare, the next two at 67%).
 */
export const WARMUP_SECONDS = Math.max(0, Number(process.env.BENCH_WARMUP_SECONDS ?? 3));

/**
 * Measures each case: throughput at 50 connections and latency at a fixed 200 req/s. The first
 * case is the bare baseline; every throughput run follows a bare run of its own, so a ratio
 * compares two figures taken seconds apart: other work on a shared machine drifts less in between.
 * Each measurement is repeated `repeats` times and the median kept: the pair with the median
 * ratio, the fixed-rate run with the median p99.
 */
export async function measureCases(
  cases: Case[],
  seconds: number,
  log: (line: string) => void,
  cleanup: () => Promise<void>,
  repeats = REPEATS,
): Promise<CaseResult[]> {
  const bare = cases[0];
  const results: CaseResult[] = [];
  try {
    for (const c of cases) {
      log(`measuring ${c.name}${repeats > 1 ? ` (${repeats} times)` : ''}`);
      if (WARMUP_SECONDS > 0) await measure(c.url, c.req, { connections: 50, seconds: WARMUP_SECONDS });
      const pairs: Array<{ throughput: Figures; adjacentBare: Figures }> = [];
      const fixed: Figures[] = [];
      for (let r = 0; r < repeats; r++) {
        const adjacentBare = await measure(bare.url, bare.req, { connections: 50, seconds });
        const throughput = c === bare ? adjacentBare : await measure(c.url, c.req, { connections: 50, seconds });
        pairs.push({ throughput, adjacentBare });
        // The flood above leaves up to 50 requests queued in the server: let them drain, so the
        // fixed-rate run measures the rate, not the tail of the previous run.
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        fixed.push(await fixedRate(c, seconds));
      }
      const pair = median(pairs, (p) => p.throughput.rps / p.adjacentBare.rps);
      results.push({
        name: c.name,
        ...pair,
        fixedRate: median(fixed, (f) => f.p99),
        ...(repeats > 1 ? { runs: { pairs, fixedRate: fixed } } : {}),
      });
    }
  } finally {
    await cleanup();
  }
  return results;
}

const clientProbe = selfProbe();

/**
 * One fixed-rate run, with the server's event-loop delay and GC pauses (its probe, when it was
 * started by processes.ts) and the load generator's over the same window: a p99 beside them
 * tells a tail of the server's own work from a machine busy with something else.
 */
export async function fixedRate(c: Case, seconds: number, rate = 200): Promise<Figures> {
  const server = probeAt(c.url);
  const run = await whileProbed(server, () =>
    whileProbed(clientProbe, () => measure(c.url, c.req, { connections: 10, seconds, rate })),
  );
  return {
    ...run.result.result,
    ...(run.figures ? { server: run.figures } : {}),
    ...(run.result.figures ? { client: run.result.figures } : {}),
  };
}

export const byName = (results: CaseResult[], prefix: string) => results.find((r) => r.name.startsWith(prefix))!;

export const ratioToBare = (r: CaseResult) => r.throughput.rps / r.adjacentBare.rps;

/** One table row per case, as the benchmarks print them. */
export function caseRows(results: CaseResult[]): Array<Record<string, string | number>> {
  return results.map((r) => ({
    endpoint: r.name,
    'req/s @50': r.throughput.rps,
    'bare just before': r.adjacentBare.rps,
    'vs bare': `${Math.round(ratioToBare(r) * 100)}%`,
    'p50 ms @200/s': r.fixedRate.p50,
    'p99 ms @200/s': r.fixedRate.p99,
    'server loop p99 / GC max ms': r.fixedRate.server
      ? `${r.fixedRate.server.loopDelay.p99Ms} / ${r.fixedRate.server.gc.maxPauseMs}`
      : '-',
    errors: r.throughput.errors + r.fixedRate.errors + r.throughput.non2xx + r.fixedRate.non2xx,
  }));
}

/** Each target as a boolean (nested: the same targets on PostgreSQL). */
export interface Meets {
  [target: string]: boolean | Meets;
}

/**
 * Prints the table and the targets, and writes them with the machine and the run's details to
 * `bench/results/<name>.json`; `meets` holds each target as a boolean.
 */
export function report(
  name: string,
  results: CaseResult[],
  meets: Meets,
  details: Record<string, unknown>,
  log: (line: string) => void,
): void {
  console.log(table(caseRows(results)));
  console.log('\nmeets:', meets);
  const out = {
    when: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, loadavgAtEnd: os.loadavg() },
    ...details,
    repeats: REPEATS,
    baseline: { name: results[0].name, rps: results[0].throughput.rps, p99AtFixedRate: results[0].fixedRate.p99 },
    results,
    meets,
  };
  const dir = path.resolve(import.meta.dirname, '../results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(out, null, 2)}\n`);
  log(`written bench/results/${name}.json`);
}
