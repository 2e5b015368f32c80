/**
 * `npm run bench:api`: the Locker API at scale (1,000,000 orders of one company, 10,000
 * lockers) against a bare Express endpoint measured in the same run. Figures: req/s at 50
 * connections, and p50/p99 latency at a fixed 200 req/s. Writes bench/results/api.json.
 *
 * Each measurement runs BENCH_REPEATS times (default 3) and the median is kept. BENCH_ORDERS,
 * BENCH_LOCKERS, BENCH_SECONDS and BENCH_REPEATS shrink a run for a quick look.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedBenchDatabase } from './lib/seed-orders.ts';
import { startChild, ROOT } from './lib/processes.ts';
import { measure, median, table, type Figures, type LoadRequest } from './lib/load.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const LOCKERS = Number(process.env.BENCH_LOCKERS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const log = (line: string) => process.stderr.write(`[bench:api] ${line}\n`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-bench-'));
const file = path.join(dir, 'bench.db');
const t0 = Date.now();
log(`seeding ${ORDERS.toLocaleString('en')} orders and ${LOCKERS.toLocaleString('en')} lockers into ${file}`);
const seed = await seedBenchDatabase(file, { lockers: LOCKERS, orders: ORDERS, progress: log });
log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const cloud = await startChild('cloud/main.ts', { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: file, RATE_LIMIT_MAX: '0', LOG_LEVEL: 'info', MQTT_PORT: '0' });
const bare = await startChild('bench/lib/bare-server.ts');
const auth = { authorization: `Bearer ${seed.apiKey}` };
const BASE = '/api/v1/integration/company';
let n = 0;
const nextOrder = () => `${BASE}/order/${seed.sampleOrderIds[n++ % seed.sampleOrderIds.length]}`;
let phone = 0;

const cases: Array<{ name: string; url: string; req: LoadRequest }> = [
  { name: 'bare Express JSON (baseline)', url: bare.url, req: { path: '/bare' } },
  { name: 'GET /order/{id}', url: cloud.url, req: { path: nextOrder, headers: auth } },
  { name: 'GET /order/list (page 1, aggregates)', url: cloud.url, req: { path: `${BASE}/order/list`, headers: auth } },
  { name: 'GET /order/list?status=DELIVERED', url: cloud.url, req: { path: `${BASE}/order/list?status=DELIVERED`, headers: auth } },
  { name: 'GET /postomat/list by distance (page of 20)', url: cloud.url, req: { path: `${BASE}/postomat/list?latitude=42.87&longitude=74.59&page=1&pageSize=20`, headers: auth } },
  {
    name: 'POST /order/create',
    url: cloud.url,
    req: {
      method: 'POST',
      path: `${BASE}/order/create`,
      headers: auth,
      body: () => JSON.stringify({ toUserPhone: `+99677${String(phone++).padStart(7, '0')}`, postomatId: seed.postomatIds[phone % seed.postomatIds.length], sendMessage: false }),
    },
  },
];

// Each endpoint's throughput run follows a bare run of its own, so a ratio compares two
// figures taken seconds apart: other work on a shared machine drifts less in between. Each
// measurement is repeated (BENCH_REPEATS) and the median kept: the pair with the median ratio,
// the fixed-rate run with the median p99.
type Pair = { throughput: Figures; adjacentBare: Figures };
const results: Array<Pair & { name: string; fixedRate: Figures; runs: { pairs: Pair[]; fixedRate: Figures[] } }> = [];
try {
  for (const c of cases) {
    log(`measuring ${c.name}`);
    const pairs: Pair[] = [];
    const fixed: Figures[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const adjacentBare = await measure(bare.url, cases[0].req, { connections: 50, seconds: SECONDS });
      const throughput = c === cases[0] ? adjacentBare : await measure(c.url, c.req, { connections: 50, seconds: SECONDS });
      pairs.push({ throughput, adjacentBare });
      fixed.push(await measure(c.url, c.req, { connections: 10, seconds: SECONDS, rate: 200 }));
    }
    const pair = median(pairs, (p) => p.throughput.rps / p.adjacentBare.rps);
    results.push({ name: c.name, ...pair, fixedRate: median(fixed, (f) => f.p99), runs: { pairs, fixedRate: fixed } });
  }
} finally {
  await cloud.stop();
  await bare.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

const baseline = results[0].throughput.rps;
const ratio = (r: (typeof results)[number]) => r.throughput.rps / r.adjacentBare.rps;
const rows = results.map((r) => ({
  endpoint: r.name,
  'req/s @50': r.throughput.rps,
  'bare just before': r.adjacentBare.rps,
  'vs bare': `${Math.round(ratio(r) * 100)}%`,
  'p50 ms @200/s': r.fixedRate.p50,
  'p99 ms @200/s': r.fixedRate.p99,
  errors: r.throughput.errors + r.fixedRate.errors + r.throughput.non2xx + r.fixedRate.non2xx,
}));
const byName = (s: string) => results.find((r) => r.name.startsWith(s))!;
const targets = {
  orderReadAtLeast70PctOfBare: ratio(byName('GET /order/{id}')) >= 0.7,
  orderListP99Under25ms: byName('GET /order/list (page').fixedRate.p99 < 25 && byName('GET /order/list?status').fixedRate.p99 < 25,
  postomatDistanceP99Under25ms: byName('GET /postomat/list').fixedRate.p99 < 25,
};
console.log(table(rows));
console.log('\ntargets:', targets);
const out = {
  when: new Date().toISOString(),
  machine: { cpus: os.cpus().length, node: process.version, loadavgAtEnd: os.loadavg() },
  dataset: { orders: ORDERS, lockers: LOCKERS, storage: 'sqlite' },
  durationSeconds: SECONDS,
  repeats: REPEATS,
  baseline: { name: results[0].name, rps: baseline },
  results,
  targets,
};
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/api.json'), JSON.stringify(out, null, 2) + '\n');
log('written bench/results/api.json');
