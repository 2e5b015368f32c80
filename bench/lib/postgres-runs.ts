/**
 * The PostgreSQL half of a benchmark run (BENCH_DATABASE_URL): the seeded SQLite data copied to
 * a PostgreSQL schema (postgres-copy.ts), the same cases measured against a cloud on it beside
 * the same bare baseline, and — for the cases named `spread` — a two-instance figure: the same
 * load at 50 connections on one cloud process, then split over two processes on the same
 * database, in the same run. Written beside the SQLite figures in the benchmark's results file.
 *
 * On this 2-core machine two cloud processes, PostgreSQL and the load generator share the same
 * cores: the two-instance figure shows that instances add up on one database without
 * contention in it, not how a fleet of machines scales.
 */
import {
  caseRows,
  measure,
  measureCases,
  median,
  REPEATS,
  table,
  type Case,
  type CaseResult,
  type Figures,
  type LoadRequest,
} from './load.ts';
import { benchDatabaseUrl, copyToPostgres } from './postgres-copy.ts';
import { startClouds } from './processes.ts';

export interface SpreadResult {
  name: string;
  oneInstance: Figures;
  twoInstances: Figures;
  /** two instances' req/s over one's */
  ratio: number;
}

export interface PostgresFigures {
  storage: 'postgresql';
  server: string;
  results: CaseResult[];
  twoInstances: SpreadResult[];
}

/** One load split over several instances at once: req/s summed, latency the worse of them. */
export async function measureSpread(
  urls: string[],
  req: LoadRequest,
  opts: { connections: number; seconds: number },
): Promise<Figures> {
  const parts = await Promise.all(
    urls.map((u) =>
      measure(u, req, { connections: Math.max(1, Math.round(opts.connections / urls.length)), seconds: opts.seconds }),
    ),
  );
  return {
    rps: parts.reduce((s, p) => s + p.rps, 0),
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    errors: parts.reduce((s, p) => s + p.errors, 0),
    non2xx: parts.reduce((s, p) => s + p.non2xx, 0),
  };
}

export async function postgresFigures(opts: {
  name: string;
  baseUrl: string;
  sqliteFile: string;
  bare: Case;
  /** the cases against a cloud at `url` (the bare baseline is added first) */
  cases: (url: string) => Case[];
  /** names (prefixes) of the cases measured on one and on two instances */
  spread: string[];
  seconds: number;
  log: (line: string) => void;
}): Promise<PostgresFigures> {
  const { log } = opts;
  const copy = await copyToPostgres(opts.sqliteFile, opts.baseUrl, `bench_${opts.name}`, log);
  const clouds = await startClouds(copy.databaseUrl, copy.env, 2);
  try {
    const [one, two] = clouds as [(typeof clouds)[0], (typeof clouds)[0]];
    log('PostgreSQL: one instance');
    const results = await measureCases([opts.bare, ...opts.cases(one.url)], opts.seconds, log, async () => {});
    const twoInstances: SpreadResult[] = [];
    for (const prefix of opts.spread) {
      const single = opts.cases(one.url).find((c) => c.name.startsWith(prefix))!;
      log(`PostgreSQL: ${single.name} on one instance, then on two`);
      const runs: Array<{ oneInstance: Figures; twoInstances: Figures }> = [];
      for (let r = 0; r < REPEATS; r++) {
        const oneInstance = await measure(one.url, single.req, { connections: 50, seconds: opts.seconds });
        const twoInstances = await measureSpread([one.url, two.url], single.req, {
          connections: 50,
          seconds: opts.seconds,
        });
        runs.push({ oneInstance, twoInstances });
      }
      const m = median(runs, (x) => x.twoInstances.rps / x.oneInstance.rps);
      twoInstances.push({
        name: single.name,
        ...m,
        ratio: Math.round((m.twoInstances.rps / m.oneInstance.rps) * 100) / 100,
      });
    }
    return { storage: 'postgresql', server: await serverVersion(opts.baseUrl), results, twoInstances };
  } finally {
    for (const c of clouds) await c.stop();
    await copy.drop();
  }
}

/**
 * A benchmark's whole measurement: its cases on SQLite; then, with BENCH_DATABASE_URL, the SQLite
 * cloud stopped and the same cloud cases on PostgreSQL; `cleanup` (the seeded cloud's) in any case.
 */
export async function measureBoth(opts: {
  name: string;
  cases: Case[];
  sqliteCloud: { stop(): Promise<void> };
  sqliteFile: string;
  bare: Case;
  cloudCases: (url: string) => Case[];
  spread: string[];
  seconds: number;
  log: (line: string) => void;
  cleanup: () => Promise<void>;
}): Promise<{ results: CaseResult[]; postgres?: PostgresFigures }> {
  try {
    const results = await measureCases(opts.cases, opts.seconds, opts.log, async () => {});
    const baseUrl = benchDatabaseUrl();
    if (!baseUrl) return { results };
    await opts.sqliteCloud.stop();
    const postgres = await postgresFigures({
      name: opts.name,
      baseUrl,
      sqliteFile: opts.sqliteFile,
      bare: opts.bare,
      cases: opts.cloudCases,
      spread: opts.spread,
      seconds: opts.seconds,
      log: opts.log,
    });
    return { results, postgres };
  } finally {
    await opts.cleanup();
  }
}

/** The PostgreSQL figures as the benchmarks print theirs. */
export function printPostgres(p: PostgresFigures): void {
  console.log(`\nPostgreSQL ${p.server}:`);
  console.log(table(caseRows(p.results)));
  if (p.twoInstances.length) {
    console.log('\none instance vs two on the same database (50 connections in all):');
    console.log(
      table(
        p.twoInstances.map((s) => ({
          endpoint: s.name,
          'req/s, one': s.oneInstance.rps,
          'req/s, two': s.twoInstances.rps,
          ratio: s.ratio,
          'p99 ms, one': s.oneInstance.p99,
          'p99 ms, two': s.twoInstances.p99,
        })),
      ),
    );
  }
}

async function serverVersion(url: string): Promise<string> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v;
  } finally {
    await c.end();
  }
}
