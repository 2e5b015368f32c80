/**
 * `npm run bench:create-profile`: where one order creation's time goes. The cloud (bundled, as
 * `npm run cloud` runs it) on a small seeded SQLite file answers POST /order/create at 50
 * connections for BENCH_SECONDS (10) under node's CPU profiler; prints its req/s, the bare
 * committed insert's beside it, and the profile's top functions and files
 * (bench/lib/profile-summary.ts). A diagnosis, not a figure of record: bench:api measures.
 * BENCH_PROFILE_DIR keeps the profile (default: a temporary folder, printed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { seedBenchDatabase } from './lib/seed-orders.ts';
import { CLOUD_ENV, cpuProfileFlags, startChild } from './lib/processes.ts';
import { measure } from './lib/load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const log = (line: string) => process.stderr.write(`[bench:create-profile] ${line}\n`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-create-'));
const profiles = process.env.BENCH_PROFILE_DIR ?? path.join(dir, 'profile');
const file = path.join(dir, 'bench.db');
log('seeding 100 lockers and 10,000 orders');
const seed = await seedBenchDatabase(file, { lockers: 100, orders: 10_000, progress: () => undefined });

let phone = 0;
const createBody = () =>
  JSON.stringify({
    toUserPhone: `+99677${String(phone++).padStart(7, '0')}`,
    postomatId: seed.postomatIds[phone % seed.postomatIds.length],
    sendMessage: false,
  });
const create = {
  method: 'POST' as const,
  path: '/api/v1/integration/company/order/create',
  headers: { authorization: `Bearer ${seed.apiKey}` },
  body: createBody,
};

const bare = await startChild('bench/lib/bare-server.ts');
const bareFigures = await measure(
  bare.url,
  { method: 'POST', path: '/bare-insert', body: createBody },
  { connections: 50, seconds: SECONDS },
);
await bare.stop();

const cloud = await startChild('cloud/main.ts', CLOUD_ENV(file), [], cpuProfileFlags(profiles, 200));
// One unmeasured second: the first requests compile the code paths.
await measure(cloud.url, create, { connections: 10, seconds: 1 });
const figures = await measure(cloud.url, create, { connections: 50, seconds: SECONDS });
await cloud.stop();

log(`creates ${figures.rps} req/s (non-2xx ${figures.non2xx}); bare committed insert ${bareFigures.rps} req/s`);
const [profile] = fs.readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'));
log(`profile: ${path.join(profiles, profile!)}`);
spawnSync(
  process.execPath,
  ['--import', 'tsx', 'bench/lib/profile-summary.ts', path.join(profiles, profile!), process.env.BENCH_TOP ?? '45'],
  { stdio: 'inherit' },
);
