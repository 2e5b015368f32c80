/**
 * `npm run bench:platform`: the Platform API's searches at scale (1,000,000 parcels, 100,000
 * clients) against a bare Express endpoint measured in the same run. Figures: req/s at 50
 * connections, and p50/p99 latency at a fixed 200 req/s, for
 * - parcel/list with a search string, rotating over what an operator types: the tail of a
 *   client's phone, a client's full name (both found through the clients' trigram index), a
 *   piece of a track code (the parcels' trigram index); then each kind alone, to show what each
 *   costs;
 * - client/search-by-code, rotating over its forms (SRL-123, 123, -123, SRLP-123, SRL).
 * Writes bench/results/platform.json.
 *
 * Each measurement runs BENCH_REPEATS times (default 6, of BENCH_SECONDS = 5 s each) and the median is kept. BENCH_PARCELS,
 * BENCH_CLIENTS, BENCH_SECONDS and BENCH_REPEATS shrink a run for a quick look.
 *
 * With BENCH_DATABASE_URL (PostgreSQL; schema bench_platform, made and dropped), the same rows
 * are measured on PostgreSQL too, written under `postgres` in platform.json.
 */
import { seedPlatformBench } from './lib/seed-platform.ts';
import { seededCloud } from './lib/processes.ts';
import { byName, report, type Case, type CaseResult, type LoadRequest, SECONDS } from './lib/load.ts';
import { measureBoth, printPostgres } from './lib/postgres-runs.ts';

const PARCELS = Number(process.env.BENCH_PARCELS ?? 1_000_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 100_000);
const log = (line: string) => process.stderr.write(`[bench:platform] ${line}\n`);

const { seed, cloud, bare, file, cleanup } = await seededCloud(
  `${PARCELS.toLocaleString('en')} parcels and ${CLIENTS.toLocaleString('en')} clients`,
  log,
  (file) => seedPlatformBench(file, { clients: CLIENTS, parcels: PARCELS, progress: log }),
);
const auth = { 'x-api-token': seed.apiKey };
const BASE = '/api/v1/integrations';

/** What an operator types into the search box, by kind; the headline case rotates over all three. */
const byKind = {
  'phone tail': seed.sampleClients.map((c) => c.phone.slice(-7)),
  'full name': seed.sampleClients.map((c) => c.name),
  'track code piece': seed.sampleTrackCodes.map((t) => t.slice(3, 9)),
};
const mixed = seed.sampleClients.flatMap((_, k) => Object.values(byKind).map((values) => values[k % values.length]));
const codeForms = seed.sampleClients.flatMap((c) => [
  `${seed.codeName}-${c.code}`,
  String(c.code),
  `-${c.code}`,
  `${seed.codeName}P-${c.code}`,
  seed.codeName,
]);
const rotate = (values: string[], url: (v: string) => string) => {
  let n = 0;
  return () => url(values[n++ % values.length]);
};
const parcelSearch = (values: string[]): LoadRequest => ({
  path: rotate(values, (s) => `${BASE}/logistic-company/parcel/list?search=${encodeURIComponent(s)}`),
  headers: auth,
});

const bareCase: Case = { name: 'bare Express JSON (baseline)', url: bare.url, req: { path: '/bare' } };
/** The cloud's cases against a cloud at `url` (SQLite, then PostgreSQL with BENCH_DATABASE_URL). */
const cloudCases = (url: string): Case[] => [
  { name: 'GET parcel/list?search= (phone, name, track code in turn)', url, req: parcelSearch(mixed) },
  ...Object.entries(byKind).map(([kind, values]) => ({
    name: `  parcel/list?search= ${kind} only`,
    url,
    req: parcelSearch(values),
  })),
  {
    name: 'GET client/search-by-code (five forms in turn)',
    url,
    req: {
      path: rotate(codeForms, (s) => `${BASE}/client/search-by-code?search=${encodeURIComponent(s)}`),
      headers: auth,
    },
  },
];

// How many parcels each kind of search finds (the work behind each answer), on average over a sample.
const matches: Record<string, number> = {};
for (const [kind, values] of Object.entries(byKind)) {
  let total = 0;
  for (const s of values.slice(0, 20)) {
    const res = await fetch(`${cloud.url}${BASE}/logistic-company/parcel/list?search=${encodeURIComponent(s)}`, {
      headers: auth,
    });
    total += ((await res.json()) as { total: number }).total;
  }
  matches[kind] = Math.round(total / 20);
}
log(`parcels found per search, on average: ${JSON.stringify(matches)}`);

const cases: Case[] = [bareCase, ...cloudCases(cloud.url)];
// Then the same rows on PostgreSQL (its trigram indexes instead of FTS5), beside the same bare baseline.
const { results, postgres } = await measureBoth({
  name: 'platform',
  cases,
  sqliteCloud: cloud,
  sqliteFile: file,
  bare: bareCase,
  cloudCases,
  spread: [],
  seconds: SECONDS,
  log,
  cleanup,
});
/** The targets of one run's results (SQLite's, or PostgreSQL's). */
const meetsOf = (rs: CaseResult[]) => ({
  parcelSearchP99Under25ms: byName(rs, 'GET parcel/list').fixedRate.p99 < 25,
  clientSearchP99Under25ms: byName(rs, 'GET client/search-by-code').fixedRate.p99 < 25,
});
const meets = { ...meetsOf(results), ...(postgres ? { postgres: meetsOf(postgres.results) } : {}) };
report(
  'platform',
  results,
  meets,
  {
    dataset: {
      parcels: PARCELS,
      clients: CLIENTS,
      measuredCompanyShare: 0.6,
      storage: 'sqlite',
      searchIndex:
        "FTS5 trigram over the parcels' own text and over the clients' (name, phone), compacted after the import (search optimize)",
    },
    durationSeconds: SECONDS,
    searches: {
      kinds: 'phone tail (last 7 digits), full name (60 first names x 60 surnames), track code piece (6 characters)',
      examples: Object.fromEntries(Object.entries(byKind).map(([kind, values]) => [kind, values[0]])),
      parcelsFoundOnAverage: matches,
      codeForms: codeForms.slice(0, 5),
    },
    ...(postgres ? { postgres } : {}),
  },
  log,
);
if (postgres) printPostgres(postgres);
