/**
 * `npm run bench:api`: the Locker API at scale (1,000,000 orders of one company, 10,000
 * lockers) against a bare Express endpoint measured in the same run. Figures: req/s at 50
 * connections, and p50/p99 latency at a fixed 200 req/s. Writes bench/results/api.json.
 *
 * Each measurement runs BENCH_REPEATS times (default 6, of BENCH_SECONDS = 5 s each) and the median is kept. BENCH_ORDERS,
 * BENCH_LOCKERS, BENCH_SECONDS and BENCH_REPEATS shrink a run for a quick look.
 *
 * With BENCH_DATABASE_URL (a PostgreSQL database; the run makes and drops schema bench_api), the
 * same rows are copied to PostgreSQL and measured there too, with order reads and creates on one
 * cloud process and on two (lib/postgres-runs.ts); written under `postgres` in api.json.
 */
import SQLite from 'better-sqlite3';
import { seedBenchDatabase } from './lib/seed-orders.ts';
import { CLOUD_ENV, seededCloud, startChild } from './lib/processes.ts';
import { byName, ratioToBare, report, type Case, type CaseResult, SECONDS } from './lib/load.ts';
import { measureBoth, printPostgres } from './lib/postgres-runs.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const LOCKERS = Number(process.env.BENCH_LOCKERS ?? 10_000);
const log = (line: string) => process.stderr.write(`[bench:api] ${line}\n`);

const { seed, cloud, bare, file, cleanup } = await seededCloud(
  `${ORDERS.toLocaleString('en')} orders and ${LOCKERS.toLocaleString('en')} lockers`,
  log,
  (file) => seedBenchDatabase(file, { lockers: LOCKERS, orders: ORDERS, progress: log }),
);
const auth = { authorization: `Bearer ${seed.apiKey}` };
const BASE = '/api/v1/integration/company';
let n = 0;
const nextOrder = () => `${BASE}/order/${seed.sampleOrderIds[n++ % seed.sampleOrderIds.length]}`;
let phone = 0;

/**
 * Cache-cold reads: every order id of the table in a shuffled order, so no id repeats before the
 * whole table has been read once (the ~1,000 sample ids above stay in SQLite's page cache and
 * the CPU caches after their first round). The file itself is in the OS page cache (processes.ts
 * reads it through): cold here means not in SQLite's cache, not on the disk.
 */
const allIds = (() => {
  const db = new SQLite(file, { readonly: true });
  try {
    const ids = db.prepare('select id from locker_order').pluck().all() as string[];
    let seed = 23;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    return ids;
  } finally {
    db.close();
  }
})();
let cold = 0;
const nextColdOrder = () => `${BASE}/order/${allIds[cold++ % allIds.length]}`;
log(
  `cold reads rotate over all ${allIds.length.toLocaleString('en')} orders, warm ones over ${seed.sampleOrderIds.length.toLocaleString('en')}`,
);

const bareCase: Case = { name: 'bare Express JSON (baseline)', url: bare.url, req: { path: '/bare' } };
const createBody = () =>
  JSON.stringify({
    toUserPhone: `+99677${String(phone++).padStart(7, '0')}`,
    postomatId: seed.postomatIds[phone % seed.postomatIds.length],
    sendMessage: false,
  });
/** The baseline of creates: the same body, one SQLite row committed per request with the cloud's durability. */
const bareInsertCase: Case = {
  name: 'bare Express POST, one SQLite insert committed (synchronous = FULL)',
  url: bare.url,
  req: { method: 'POST', path: '/bare-insert', body: createBody },
};
/** The cloud's cases against a cloud at `url` (SQLite, then PostgreSQL with BENCH_DATABASE_URL). */
const cloudCases = (url: string): Case[] => [
  { name: 'GET /order/{id}', url, req: { path: nextOrder, headers: auth } },
  { name: 'GET /order/{id} cold: ids from the whole table', url, req: { path: nextColdOrder, headers: auth } },
  { name: 'GET /order/list (page 1, aggregates)', url, req: { path: `${BASE}/order/list`, headers: auth } },
  {
    name: 'GET /order/list?status=DELIVERED',
    url,
    req: { path: `${BASE}/order/list?status=DELIVERED`, headers: auth },
  },
  {
    name: 'GET /postomat/list by distance (page of 20)',
    url,
    req: { path: `${BASE}/postomat/list?latitude=42.87&longitude=74.59&page=1&pageSize=20`, headers: auth },
  },
  {
    name: 'POST /order/create',
    url,
    req: {
      method: 'POST',
      path: `${BASE}/order/create`,
      headers: auth,
      body: createBody,
    },
  },
];

/**
 * The end-of-turn read batching (cloud/storage/read-batcher.ts), measured against the same reads
 * run where they are asked for: a second cloud on the same file started with
 * SQLITE_READS=in-place. BENCH_API_END_OF_TURN=0 leaves it out.
 */
const inPlace =
  process.env.BENCH_API_END_OF_TURN === '0'
    ? undefined
    : await startChild('cloud/main.ts', { ...CLOUD_ENV(file), SQLITE_READS: 'in-place' });
const inPlaceCases: Case[] = inPlace
  ? [
      {
        name: 'GET /order/{id} reads in place (no end-of-turn batching)',
        url: inPlace.url,
        req: { path: nextOrder, headers: auth },
      },
      {
        name: 'GET /order/{id} cold, reads in place (no end-of-turn batching)',
        url: inPlace.url,
        req: { path: nextColdOrder, headers: auth },
      },
    ]
  : [];
const [orderRead, coldRead, ...otherCloudCases] = cloudCases(cloud.url);
const cases: Case[] = [
  bareCase,
  { name: 'bare Express JSON, answered at the end of the turn', url: bare.url, req: { path: '/bare-end-of-turn' } },
  orderRead!,
  coldRead!,
  ...inPlaceCases,
  ...otherCloudCases,
  bareInsertCase,
];

// Then the same rows on PostgreSQL, the same bare baseline, and order reads and creates on two instances.
const { results, postgres } = await measureBoth({
  name: 'api',
  cases,
  sqliteCloud: cloud,
  sqliteFile: file,
  bare: bareCase,
  cloudCases,
  spread: ['GET /order/{id}', 'POST /order/create'],
  seconds: SECONDS,
  log,
  cleanup: async () => {
    await inPlace?.stop();
    await cleanup();
  },
});
/** The targets of one run's results (SQLite's, or PostgreSQL's beside its own bare runs). */
const meetsOf = (rs: CaseResult[]) => {
  const result = (prefix: string) => byName(rs, prefix);
  return {
    orderReadAtLeast70PctOfBare: ratioToBare(result('GET /order/{id}')) >= 0.7,
    coldOrderReadAtLeast70PctOfBare: ratioToBare(result('GET /order/{id} cold')) >= 0.7,
    orderListP99Under25ms:
      result('GET /order/list (page').fixedRate.p99 < 25 && result('GET /order/list?status').fixedRate.p99 < 25,
    postomatDistanceP99Under25ms: result('GET /postomat/list').fixedRate.p99 < 25,
  };
};
/** Creates over the bare insert, each against its own adjacent bare runs (SQLite: the baseline commits to SQLite). */
const createVsBareInsert = () =>
  Math.round(
    (ratioToBare(byName(results, 'POST /order/create')) / ratioToBare(byName(results, 'bare Express POST'))) * 1000,
  ) / 1000;
const result = (prefix: string) => byName(results, prefix);
const meets = {
  ...meetsOf(results),
  orderCreateAtLeast50PctOfBareInsert: createVsBareInsert() >= 0.5,
  ...(postgres ? { postgres: meetsOf(postgres.results) } : {}),
};
// The order read against a bare endpoint that also answers at the end of the turn: each ratio
// is taken against its own adjacent bare runs, so the drift between the two cases cancels out.
const orderReadVsEndOfTurnBare =
  ratioToBare(result('GET /order/{id}')) / ratioToBare(result('bare Express JSON, answered'));
console.log(
  `POST /order/create against the bare endpoint committing one insert: ${Math.round(createVsBareInsert() * 100)}%`,
);
console.log(
  `GET /order/{id} against the bare endpoint answered at the end of the turn: ${Math.round(orderReadVsEndOfTurnBare * 100)}%`,
);
/** With the end-of-turn batching over without it, each against its own adjacent bare runs; p99 at 200/s beside. */
function endOfTurnComparison() {
  const pair = (batched: string, inPlaceName: string) => {
    const b = result(batched);
    const p = result(inPlaceName);
    return {
      throughputRatio: Math.round((ratioToBare(b) / ratioToBare(p)) * 1000) / 1000,
      batchedVsBare: Math.round(ratioToBare(b) * 1000) / 1000,
      inPlaceVsBare: Math.round(ratioToBare(p) * 1000) / 1000,
      p99AtFixedRateMs: { batched: b.fixedRate.p99, inPlace: p.fixedRate.p99 },
    };
  };
  return {
    warm: pair('GET /order/{id}', 'GET /order/{id} reads in place'),
    cold: pair('GET /order/{id} cold', 'GET /order/{id} cold, reads in place'),
  };
}
if (inPlace)
  console.log(
    `end-of-turn batching (with ÷ without, each against its adjacent bare runs): ${JSON.stringify(endOfTurnComparison())}`,
  );
report(
  'api',
  results,
  meets,
  {
    dataset: { orders: ORDERS, lockers: LOCKERS, storage: 'sqlite' },
    durationSeconds: SECONDS,
    comparisons: {
      orderReadVsEndOfTurnBare: Math.round(orderReadVsEndOfTurnBare * 1000) / 1000,
      orderCreateVsBareInsert: createVsBareInsert(),
      coldOrderReadVsWarm:
        Math.round((ratioToBare(result('GET /order/{id} cold')) / ratioToBare(result('GET /order/{id}'))) * 1000) /
        1000,
      ...(inPlace ? { endOfTurn: endOfTurnComparison() } : {}),
    },
    ...(postgres ? { postgres } : {}),
  },
  log,
);
if (postgres) printPostgres(postgres);
