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
 * passes node flags to the cloud process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import readline from 'node:readline';
import SQLite from 'better-sqlite3';
import mqtt, { type MqttClient } from 'mqtt';
import { hashPassword, newPassword } from '../cloud/domain/secrets.ts';
import { AGENT_SECRET_SCRYPT_N } from '../cloud/services/admin/postomats.ts';
import { createLockerApiKey, createLockerCompany } from '../cloud/services/admin/companies.ts';
import { openStorage } from '../cloud/storage/database.ts';
import { newId } from '../cloud/storage/ids.ts';
import { CLOUD_USERNAME } from '../cloud/sync/broker.ts';
import { topics } from '../shared/mqtt/index.ts';
import { startBenchAgents } from './lib/bench-agents.ts';
import { ROOT } from './lib/processes.ts';
import { table } from './lib/load.ts';

const AGENTS = Number(process.env.BENCH_SYNC_AGENTS ?? 1000);
const ORDERS = Number(process.env.BENCH_SYNC_ORDERS ?? 1500);
const RATE = Number(process.env.BENCH_SYNC_RATE ?? 50);
const CONNECTIONS = Number(process.env.BENCH_SYNC_CONNECTIONS ?? 10_000);
const FULL_COST_SAMPLE = 40;
const WARMUP = 30;
const TARGET_P99_MS = 100;

const log = (line: string) => process.stderr.write(`[bench:sync] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
}
const round = (v: number) => Math.round(v * 100) / 100;
const stats = (v: number[]) => ({ samples: v.length, p50Ms: percentile(v, 50), p95Ms: percentile(v, 95), p99Ms: percentile(v, 99), maxMs: round(Math.max(...v)) });

interface SeededLocker {
  id: string;
  password: string;
}

/** A company with an API key, and lockers with 4 cells and agent credentials, straight into SQLite. */
async function seed(file: string, count: number, fullCost: number) {
  const storage = await openStorage(file);
  const company = await createLockerCompany(storage.db, { title: 'Sync Bench', balance: 0 });
  const { key } = await createLockerApiKey(storage.db, company.id, 'bench');
  await storage.close();
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  const at = new Date().toISOString();
  // One password and hash for all (seeding 10,000 scrypt hashes would take minutes), at the
  // cost agent reset uses; a sample at the human-password cost for comparison.
  const shared = newPassword();
  const sharedHash = hashPassword(shared, AGENT_SECRET_SCRYPT_N);
  const lockers: SeededLocker[] = [];
  const full: SeededLocker[] = [];
  const insertPostomat = db.prepare(`insert into postomat (id, incrementalid, title, shortId, isActive, isConnected, agentSecretHash, createdAt, updatedAt) values (?, ?, ?, ?, 1, 0, ?, ?, ?)`);
  const insertBoard = db.prepare('insert into board (id, postomatId, address, title, createdAt, updatedAt) values (?, ?, 0, ?, ?, ?)');
  const insertCell = db.prepare(`insert into cell (id, title, number, size, isActive, isOpen, forRentAvailable, postomatId, boardId, lock, createdAt, updatedAt) values (?, ?, ?, 'M', 1, 0, 0, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < count + fullCost; i++) {
      const id = newId();
      const isFull = i >= count;
      const password = isFull ? newPassword() : shared;
      insertPostomat.run(id, i + 1, `Sync ${i}`, `SB${i.toString(36).toUpperCase().padStart(5, '0')}`, isFull ? hashPassword(password, 16384) : sharedHash, at, at);
      const boardId = newId();
      insertBoard.run(boardId, id, 'Board 0', at, at);
      for (let n = 1; n <= 4; n++) insertCell.run(newId(), String(n), n, id, boardId, n, at, at);
      (isFull ? full : lockers).push({ id, password });
    }
  })();
  db.close();
  return { key, lockers, full };
}

/** Starts a child with tsx; resolves with the first stdout JSON line that `pick` accepts. */
function child<T>(script: string, env: Record<string, string>, pick: (msg: any) => T | undefined, nodeArgs: string[] = []): Promise<{ proc: ChildProcess; ready: T; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  // Never leave a child behind, whatever way this process ends.
  process.once('exit', () => proc.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    const lines = readline.createInterface({ input: proc.stdout! });
    lines.on('line', (line) => {
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      const ready = pick(msg);
      if (ready === undefined) return;
      lines.removeAllListeners('line');
      proc.stdout!.resume();
      proc.removeAllListeners('exit');
      resolve({ proc, ready, stop: () => new Promise((r) => (proc.once('exit', () => r()), proc.kill('SIGTERM'))) });
    });
  });
}

/** Calls `fn(i)` RATE times a second (open loop: a slow answer does not slow the arrivals). */
async function atRate(n: number, rate: number, fn: (i: number) => Promise<void>): Promise<void> {
  const start = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(fn(i));
  }
  await Promise.all(running);
}

async function untilAll(what: string, done: () => boolean, guardMs = 60_000): Promise<void> {
  const deadline = Date.now() + guardMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}

async function orderToUsable(file: string, key: string, lockers: SeededLocker[], dir: string) {
  const cloud = await child('cloud/main.ts', { PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', DATABASE_URL: file, RATE_LIMIT_MAX: '0' }, (m) =>
    m.msg === 'cloud ready' ? { url: m.url as string, mqtt: m.mqtt as string } : undefined,
    process.env.BENCH_SYNC_CLOUD_NODE_ARGS?.split(' ').filter(Boolean),
  );
  try {
    return await measureOrderToUsable(cloud.ready, key, lockers, dir, file);
  } finally {
    await cloud.stop();
  }
}

async function measureOrderToUsable(cloud: { url: string; mqtt: string }, key: string, lockers: SeededLocker[], dir: string, file: string) {
  log(`cloud on ${cloud.url}, broker ${cloud.mqtt}; connecting ${lockers.length} agents`);
  const t0 = performance.now();
  const agents = await startBenchAgents(lockers, cloud.mqtt, path.join(dir, 'agents'));
  log(`${lockers.length} agents connected in ${Math.round(performance.now() - t0)} ms`);
  const db = new SQLite(file, { readonly: true });
  await untilAll('every agent announced', () => (db.prepare('select count(*) n from locker_link where online = 1').get() as { n: number }).n >= lockers.length);
  db.close();

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
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  await atRate(ORDERS, RATE, create);
  await untilAll('every order usable at its locker', () => [...created.keys()].every((id) => agents.usableAt.has(id)));
  loopDelay.disable();
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
    agentsProcessLoopDelay: { p50Ms: round(loopDelay.percentile(50) / 1e6), p99Ms: round(loopDelay.percentile(99) / 1e6), maxMs: round(loopDelay.max / 1e6) },
  };
}

function connectClient(url: string, l: SeededLocker): Promise<{ client: MqttClient; ms: number }> {
  const start = performance.now();
  const client = mqtt.connect(url, { clientId: `locker-${l.id}`, username: l.id, password: l.password, reconnectPeriod: 0, keepalive: 300, connectTimeout: 120_000 });
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve({ client, ms: performance.now() - start }));
    client.once('error', reject);
  });
}

async function connectAll(url: string, lockers: SeededLocker[], concurrency: number) {
  const clients: MqttClient[] = new Array(lockers.length);
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < lockers.length) {
        const i = next++;
        const { client, ms } = await connectClient(url, lockers[i]);
        clients[i] = client;
        times.push(ms);
      }
    }),
  );
  return { clients, times, wallMs: performance.now() - start };
}

interface Probe {
  url: string;
  secret: string;
  /** the probe's memory after a GC, and how many clients its broker has */
  mem(): Promise<{ rss: number; heapUsed: number; clients: number }>;
}

/** Runs `fn` against a fresh broker-probe process (bench/lib/broker-probe.ts) on the seeded database. */
async function withProbe<T>(file: string, fn: (probe: Probe) => Promise<T>): Promise<T> {
  const child_ = await child('bench/lib/broker-probe.ts', { DATABASE_URL: file }, (m) => (m.port ? (m as { port: number; secret: string }) : undefined), ['--expose-gc']);
  const lines = readline.createInterface({ input: child_.proc.stdout! });
  try {
    return await fn({
      url: `mqtt://127.0.0.1:${child_.ready.port}`,
      secret: child_.ready.secret,
      mem: () =>
        new Promise((resolve) => {
          lines.once('line', (l) => resolve(JSON.parse(l)));
          child_.proc.stdin!.write('mem\n');
        }),
    });
  } finally {
    lines.close();
    await child_.stop();
  }
}

/** Baseline: publish → receive over the same broker code, to as many connected lockers, at the same rate. */
async function barePublishReceive(probe: Probe, lockers: SeededLocker[]) {
  const receivers = await connectAll(probe.url, lockers, 50);
  const received = new Map<string, number>();
  await Promise.all(
    receivers.clients.map((c, i) => {
      c.on('message', (_t, payload) => received.set(JSON.parse(payload.toString()).orderId, performance.now()));
      return c.subscribeAsync(topics.sync(lockers[i].id), { qos: 1 });
    }),
  );
  const cloud = await mqtt.connectAsync(probe.url, { clientId: 'cloud-bench', username: CLOUD_USERNAME, password: probe.secret, reconnectPeriod: 0 });
  const sent = new Map<string, number>();
  // About the size of a one-order sync message.
  const payload = (orderId: string) =>
    JSON.stringify({ v: '1.0', version: 7, full: false, since: 6, orderId, upserts: [{ orderId, codes: { DOWN: '1234', UP: '5678', SUBTRACT: '9012' }, notPaidAmount: 0, status: 'CREATED', cellId: null }], removals: [] });
  log(`baseline: ${ORDERS} bare publishes at ${RATE}/s to ${lockers.length} connected lockers`);
  await atRate(ORDERS, RATE, async (i) => {
    const id = `o${i}`;
    sent.set(id, performance.now());
    await cloud.publishAsync(topics.sync(lockers[i % lockers.length].id), payload(id), { qos: 1 });
  });
  await untilAll('every bare publish received', () => received.size >= ORDERS);
  await cloud.endAsync();
  await Promise.all(receivers.clients.map((c) => c.endAsync(true)));
  return stats([...sent].map(([id, t]) => received.get(id)! - t));
}

const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);

/** A fresh broker's memory before and after `lockers` connect, and how long they take. */
async function manyLockers(probe: Probe, lockers: SeededLocker[]) {
  const before = await probe.mem();
  log(`connecting ${lockers.length} lockers`);
  const many = await connectAll(probe.url, lockers, 200);
  await sleep(1000);
  const after = await probe.mem();
  await Promise.all(many.clients.map((c) => c.endAsync(true)));
  return {
    lockers: lockers.length,
    connectedAtOnce: after.clients,
    wallMs: Math.round(many.wallMs),
    connectsPerSecond: perSecond(lockers.length, many.wallMs),
    concurrency: 200,
    connect: stats(many.times),
    scryptCost: `N=${AGENT_SECRET_SCRYPT_N} (what agent reset stores)`,
    rssBeforeMb: round(before.rss / 2 ** 20),
    rssAfterMb: round(after.rss / 2 ** 20),
    heapBeforeMb: round(before.heapUsed / 2 ** 20),
    heapAfterMb: round(after.heapUsed / 2 ** 20),
    rssPerLockerKb: round((after.rss - before.rss) / 1024 / lockers.length),
    heapPerLockerKb: round((after.heapUsed - before.heapUsed) / 1024 / lockers.length),
  };
}

/** Logins at the human-password scrypt cost, on a sample, extrapolated to the whole fleet. */
async function humanCostLogins(probe: Probe, sample: SeededLocker[], fleet: number) {
  const r = await connectAll(probe.url, sample, 8);
  await Promise.all(r.clients.map((c) => c.endAsync(true)));
  const rate = perSecond(sample.length, r.wallMs);
  return { sample: sample.length, scryptCost: 'N=16384 (the human-password cost, for comparison)', connectsPerSecond: rate, connect: stats(r.times), secondsFor: { lockers: fleet, seconds: Math.round(fleet / rate) } };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sync-'));
  const file = path.join(dir, 'cloud.db');
  try {
    log(`seeding ${CONNECTIONS} lockers (+${FULL_COST_SAMPLE} with production-cost passwords)`);
    const { key, lockers, full } = await seed(file, Math.max(CONNECTIONS, AGENTS), FULL_COST_SAMPLE);
    const sync = await orderToUsable(file, key, lockers.slice(0, AGENTS), dir);
    if (process.env.BENCH_SYNC_ONLY_ORDERS) return console.log(JSON.stringify(sync, null, 2));
    const baseline = await withProbe(file, (p) => barePublishReceive(p, lockers.slice(0, AGENTS)));
    const connections = await withProbe(file, (p) => manyLockers(p, lockers.slice(0, CONNECTIONS)));
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
      agentKind: 'lightweight: locker-agent/sync.ts + the real agent store (SQLite, synchronous=FULL), no boards; usable = found by its DOWN code',
      orderToUsable: sync.toUsable,
      orderToAgent: sync.toReceived,
      storeApply: sync.storeApply,
      httpCreate: sync.httpCreate,
      agentsProcessLoopDelay: sync.agentsProcessLoopDelay,
      baselineBarePublishReceive: baseline,
      brokerWithManyLockers: connections,
      humanPasswordCostLogins: humanCost,
    };
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results/sync.json'), JSON.stringify(result, null, 2) + '\n');
    const row = (what: string, s: { p50Ms: number; p99Ms: number; maxMs: number; samples: number }) => ({ measure: what, samples: s.samples, 'p50 ms': s.p50Ms, 'p99 ms': s.p99Ms, 'max ms': s.maxMs });
    console.log(
      table([
        row(`order created (HTTP) → code usable at the agent, ${AGENTS} agents`, sync.toUsable),
        row('  until the sync message reaches the agent', sync.toReceived),
        row('  the agent store applying it (SQLite, FULL)', sync.storeApply),
        row('  the HTTP create answer', sync.httpCreate),
        row(`baseline: bare publish → receive, same broker, ${AGENTS} lockers`, baseline),
        row(`connect, ${CONNECTIONS} lockers (200 at a time)`, connections.connect),
        row(`connect at scrypt N=16384 (${FULL_COST_SAMPLE}, 8 at a time)`, humanCost.connect),
      ]),
    );
    const c = connections;
    console.log(
      `\n${c.connectedAtOnce} lockers connected at once in ${c.wallMs} ms (${c.connectsPerSecond}/s); broker RSS ${c.rssBeforeMb} → ${c.rssAfterMb} MB ` +
        `(${c.rssPerLockerKb} KB per locker), heap ${c.heapBeforeMb} → ${c.heapAfterMb} MB (${c.heapPerLockerKb} KB per locker).` +
        `\nAgent passwords at scrypt N=${AGENT_SECRET_SCRYPT_N}: ${c.connectsPerSecond} logins/s; at the human-password cost (N=16384) ${humanCost.connectsPerSecond}/s, ${c.lockers} lockers would need ~${humanCost.secondsFor.seconds} s.` +
        `\np99 order → usable: ${sync.toUsable.p99Ms} ms (target < ${TARGET_P99_MS} ms). Written to bench/results/sync.json`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:sync failed: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
