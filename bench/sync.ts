/**
 * `npm run bench:sync`: the cloud ⇄ locker link under load, beside baselines from the same run.
 *
 * 1. Order creation over HTTP → code usable at the locker, with BENCH_SYNC_AGENTS (1,000)
 *    agents connected to the cloud's embedded broker. Agents are lightweight: the real MQTT
 *    client side (locker-agent/sync.ts) and the real agent store (SQLite, synchronous=FULL), no
 *    boards; "usable" = the store that applied the sync message finds the order by its DOWN
 *    code. The cloud is `npm run cloud` in its own process; orders arrive at a fixed rate.
 *    Baseline: a bare publish → receive over the same broker code (cloud/sync/broker.ts in a
 *    process of its own, same hooks) to as many connected lockers, at the same rate.
 * 2. That broker's memory and connect time with BENCH_SYNC_CONNECTIONS (10,000) lockers, with
 *    agent passwords at the cost `agent reset` stores (scrypt N=1024); a sample at the
 *    human-password cost (N=16384) shows why agent passwords do not use it.
 * Prints a table and writes bench/results/sync.json. Never part of `npm test`.
 * Sizes: BENCH_SYNC_AGENTS, BENCH_SYNC_ORDERS, BENCH_SYNC_RATE, BENCH_SYNC_CONNECTIONS. For
 * digging: BENCH_SYNC_ONLY_ORDERS=1 runs part 1 alone and prints it; BENCH_SYNC_CLOUD_NODE_ARGS
 * passes node flags to the cloud process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof");
 * BENCH_SYNC_AGENT_STORES=tmpfs keeps the agents' stores in /dev/shm instead of on this disk.
 * With BENCH_DATABASE_URL (PostgreSQL; schema bench_sync, made and dropped), part 1 runs on a copy
 * of the same lockers on PostgreSQL too, written under `postgres` in sync.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { AGENT_SECRET_SCRYPT_N } from '../cloud/services/admin/postomats.ts';
import { openStorage } from '../cloud/storage/database.ts';
import { benchDatabaseUrl, copyToPostgres } from './lib/postgres-copy.ts';
import { startBenchAgents } from './lib/bench-agents.ts';
import { barePublishReceive, humanCostLogins, manyLockers, withProbe } from './lib/broker-measures.ts';
import { table } from './lib/load.ts';
import { ROOT, startChildUntil } from './lib/processes.ts';
import { selfProbe, type Probe } from './lib/server-probe.ts';
import { seed, type SeededLocker } from './lib/sync-seed.ts';
import { atRate, round, stats, untilAll } from './lib/sync-timing.ts';

const AGENTS = Number(process.env.BENCH_SYNC_AGENTS ?? 1000);
const ORDERS = Number(process.env.BENCH_SYNC_ORDERS ?? 1500);
const RATE = Number(process.env.BENCH_SYNC_RATE ?? 50);
const CONNECTIONS = Number(process.env.BENCH_SYNC_CONNECTIONS ?? 10_000);
const FULL_COST_SAMPLE = 40;
const WARMUP = 30;
/** issue 23: order created → code usable at the agent, 1,000 agents, p99 on SQLite */
const TARGET_P99_MS = 20;
/** issue 23: broker RSS per connected locker */
const TARGET_RSS_PER_LOCKER_KB = 10;

const log = (line: string) => process.stderr.write(`[bench:sync] ${line}\n`);

/** `databaseUrl`: the seeded SQLite file, or its copy on PostgreSQL (`env` names the schema). */
async function orderToUsable(
  databaseUrl: string,
  key: string,
  lockers: SeededLocker[],
  dir: string,
  env: Record<string, string> = {},
) {
  const cloud = await startChildUntil(
    'cloud/main.ts',
    {
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_MAX_CONNECTIONS_PER_ADDRESS: '0',
      MQTT_LOGIN_FAILURE_MAX: '0',
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_MAX: '0',
      METRICS_PORT: 'off',
      ...env,
    },
    (m) => (m.msg === 'cloud ready' ? { url: m.url as string, mqtt: m.mqtt as string } : undefined),
    process.env.BENCH_SYNC_CLOUD_NODE_ARGS?.split(' ').filter(Boolean),
  );
  const stores = agentStoresDir(dir);
  try {
    return await measureOrderToUsable(cloud.ready, cloud.probe, key, lockers, stores, databaseUrl);
  } finally {
    await cloud.stop();
    if (!stores.startsWith(dir)) fs.rmSync(stores, { recursive: true, force: true });
  }
}

/**
 * Where the agents keep their stores: on this box's disk, beside the cloud's database, unless
 * BENCH_SYNC_AGENT_STORES=tmpfs. A locker has a disk of its own, so the default counts one real
 * store sync in every order's path but also queues the cloud's log flushes behind 1,000 agents'
 * syncs; tmpfs tells the two apart (bench/README.md: the difference was the store's apply alone).
 */
function agentStoresDir(dir: string): string {
  if (process.env.BENCH_SYNC_AGENT_STORES !== 'tmpfs' || !fs.existsSync('/dev/shm')) return path.join(dir, 'agents');
  return fs.mkdtempSync(path.join('/dev/shm', 'bench-sync-agents-'));
}

async function measureOrderToUsable(
  cloud: { url: string; mqtt: string },
  cloudProbe: Probe,
  key: string,
  lockers: SeededLocker[],
  storesDir: string,
  databaseUrl: string,
) {
  log(`cloud on ${cloud.url}, broker ${cloud.mqtt}; connecting ${lockers.length} agents`);
  const t0 = performance.now();
  // Each reports the 4 cells sync-seed.ts gave its locker (none would raise a cell-map alarm per locker).
  const agents = await startBenchAgents(lockers, cloud.mqtt, storesDir, 50, () => performance.now(), 4);
  log(`${lockers.length} agents connected in ${Math.round(performance.now() - t0)} ms`);
  const storage = await openStorage(databaseUrl, { migrate: false });
  const deadline = Date.now() + 60_000;
  try {
    while (
      Number(
        (await sql<{ n: number }>`select count(*) as n from locker_link where online = 1`.execute(storage.db)).rows[0]!
          .n,
      ) < lockers.length
    ) {
      if (Date.now() > deadline) throw new Error('timed out: every agent announced');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await storage.close();
  }

  const created = new Map<string, { start: number; answered: number }>();
  const create = async () => {
    const locker = lockers[Math.floor(Math.random() * lockers.length)];
    const start = performance.now();
    const res = await fetch(`${cloud.url}/api/v1/integration/company/order/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ toUserPhone: '+996555000333', postomatId: locker.id, sendMessage: false }),
    });
    const body = (await res.json()) as { id: string };
    if (res.status !== 200) throw new Error(`order create: ${res.status} ${JSON.stringify(body)}`);
    created.set(body.id, { start, answered: performance.now() });
  };
  await atRate(WARMUP, RATE, create);
  await untilAll('warm-up orders usable', () => [...created.keys()].every((id) => agents.usableAt.has(id)));
  created.clear();
  log(`creating ${ORDERS} orders at ${RATE}/s`);
  // The agents, the HTTP client and the clock all live in this process: its stalls count too.
  // The cloud's event-loop delay and GC pauses over the same window tell its own tails apart.
  const self = selfProbe();
  await cloudProbe.start();
  await self.start();
  await atRate(ORDERS, RATE, create);
  await untilAll('every order usable at its locker', () => [...created.keys()].every((id) => agents.usableAt.has(id)));
  const agentsProcess = await self.stop();
  const cloudProcess = await cloudProbe.stop();
  const toUsable = [...created].map(([id, t]) => agents.usableAt.get(id)! - t.start);
  const toReceived = [...created].map(([id, t]) => agents.receivedAt.get(id)! - t.start);
  const applying = [...created.keys()].map((id) => agents.usableAt.get(id)! - agents.receivedAt.get(id)!);
  const http = [...created.values()].map((t) => t.answered - t.start);
  await agents.close();
  return {
    toUsable: stats(toUsable),
    toReceived: stats(toReceived),
    storeApply: stats(applying),
    httpCreate: stats(http),
    cloudProcess,
    agentsProcessLoopDelay: agentsProcess.loopDelay,
    agentsProcessGc: agentsProcess.gc,
  };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sync-'));
  const file = path.join(dir, 'cloud.db');
  try {
    log(`seeding ${CONNECTIONS} lockers (+${FULL_COST_SAMPLE} with production-cost passwords)`);
    const { key, lockers, full } = await seed(file, Math.max(CONNECTIONS, AGENTS), FULL_COST_SAMPLE);
    // The same lockers on PostgreSQL, copied before the SQLite run leaves its orders and link state behind.
    const pgUrl = benchDatabaseUrl();
    const pgCopy = pgUrl ? await copyToPostgres(file, pgUrl, 'bench_sync', log) : undefined;
    const sync = await orderToUsable(file, key, lockers.slice(0, AGENTS), dir);
    // biome-ignore lint/suspicious/noImplicitAnyLet: TypeScript types it from the one assignment below
    let postgres;
    if (pgCopy) {
      try {
        log('PostgreSQL: order created → code usable at the agent');
        const onPg = await orderToUsable(
          pgCopy.databaseUrl,
          key,
          lockers.slice(0, AGENTS),
          path.join(dir, 'pg'),
          pgCopy.env,
        );
        postgres = {
          storage: 'postgresql',
          orderToUsable: onPg.toUsable,
          orderToAgent: onPg.toReceived,
          storeApply: onPg.storeApply,
          httpCreate: onPg.httpCreate,
          cloudProcess: onPg.cloudProcess,
          agentsProcessLoopDelay: onPg.agentsProcessLoopDelay,
          agentsProcessGc: onPg.agentsProcessGc,
        };
      } finally {
        await pgCopy.drop();
      }
    }
    if (process.env.BENCH_SYNC_ONLY_ORDERS)
      return console.log(JSON.stringify({ ...sync, ...(postgres ? { postgres } : {}) }, null, 2));
    const baseline = await withProbe(file, (p) =>
      barePublishReceive(p, lockers.slice(0, AGENTS), { orders: ORDERS, rate: RATE, log }),
    );
    const connections = await withProbe(file, (p) => manyLockers(p, lockers.slice(0, CONNECTIONS), log));
    const humanCost = await withProbe(file, (p) => humanCostLogins(p, full, CONNECTIONS));
    const result = {
      benchmark: 'sync',
      measuredAt: new Date().toISOString(),
      node: process.version,
      loadAverage: os.loadavg().map(round),
      agents: AGENTS,
      orders: ORDERS,
      ratePerSecond: RATE,
      targetP99Ms: TARGET_P99_MS,
      agentKind:
        'lightweight: locker-agent/sync.ts + the real agent store (SQLite, synchronous=FULL), no boards; usable = found by its DOWN code',
      orderToUsable: sync.toUsable,
      orderToAgent: sync.toReceived,
      storeApply: sync.storeApply,
      httpCreate: sync.httpCreate,
      cloudProcess: sync.cloudProcess,
      agentsProcessLoopDelay: sync.agentsProcessLoopDelay,
      agentsProcessGc: sync.agentsProcessGc,
      baselineBarePublishReceive: baseline,
      brokerWithManyLockers: connections,
      humanPasswordCostLogins: humanCost,
      ...(postgres ? { postgres } : {}),
      targetRssPerLockerKb: TARGET_RSS_PER_LOCKER_KB,
      meets: {
        orderToUsableP99Under20msOnSqlite: sync.toUsable.p99Ms < TARGET_P99_MS,
        measuredOnPostgres: postgres !== undefined,
        brokerRssPerLockerAtMost10Kb: connections.settledRssPerLockerKb <= TARGET_RSS_PER_LOCKER_KB,
      },
    };
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results/sync.json'), `${JSON.stringify(result, null, 2)}\n`);
    const row = (what: string, s: { p50Ms: number; p99Ms: number; maxMs: number; samples: number }) => ({
      measure: what,
      samples: s.samples,
      'p50 ms': s.p50Ms,
      'p99 ms': s.p99Ms,
      'max ms': s.maxMs,
    });
    console.log(
      table([
        row(`order created (HTTP) → code usable at the agent, ${AGENTS} agents`, sync.toUsable),
        row('  until the sync message reaches the agent', sync.toReceived),
        row('  the agent store applying it (SQLite, FULL)', sync.storeApply),
        row('  the HTTP create answer', sync.httpCreate),
        ...(postgres
          ? [
              row(`on PostgreSQL: order created (HTTP) → code usable at the agent`, postgres.orderToUsable),
              row('  the HTTP create answer (PostgreSQL)', postgres.httpCreate),
            ]
          : []),
        row(`baseline: bare publish → receive, same broker, ${AGENTS} lockers`, baseline),
        row(`connect, ${CONNECTIONS} lockers (200 at a time)`, connections.connect),
        row(`connect at scrypt N=16384 (${FULL_COST_SAMPLE}, 8 at a time)`, humanCost.connect),
      ]),
    );
    const c = connections;
    console.log(
      `\n${c.connectedAtOnce} lockers connected at once in ${c.wallMs} ms (${c.connectsPerSecond}/s); broker RSS ${c.rssBeforeMb} → ${c.rssAfterMb} MB ` +
        `(${c.rssPerLockerKb} KB per locker), heap ${c.heapBeforeMb} → ${c.heapAfterMb} MB (${c.heapPerLockerKb} KB per locker); ` +
        `${c.settledAfterMs / 1000} s later, still connected: ${c.settledRssPerLockerKb} KB of RSS per locker (heap in use ${c.settledHeapUsedPerLockerKb} KB, committed ${c.settledHeapCommittedPerLockerKb} KB, outside the heap ${c.settledOutsideHeapPerLockerKb} KB).` +
        `\nAgent passwords at scrypt N=${AGENT_SECRET_SCRYPT_N}: ${c.connectsPerSecond} logins/s; at the human-password cost (N=16384) ${humanCost.connectsPerSecond}/s, ${c.lockers} lockers would need ~${humanCost.secondsFor.seconds} s.` +
        `\np99 order → usable: ${sync.toUsable.p99Ms} ms (target < ${TARGET_P99_MS} ms); over the same window the cloud's event-loop delay p99 ${sync.cloudProcess.loopDelay.p99Ms} ms (max ${sync.cloudProcess.loopDelay.maxMs}), ` +
        `GC ${sync.cloudProcess.gc.count} pauses, ${sync.cloudProcess.gc.totalMs} ms in all, longest ${sync.cloudProcess.gc.maxPauseMs} ms; this process's loop delay p99 ${sync.agentsProcessLoopDelay.p99Ms} ms.` +
        `\nmeets: ${JSON.stringify(result.meets)}. Written to bench/results/sync.json`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:sync failed: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
