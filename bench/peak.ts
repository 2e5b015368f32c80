/**
 * `npm run bench:peak`: a whole country's peak on one small box (issue 23). InPost's 2024 peak
 * day carried ~14 million parcels: ≈ 160 parcels a second nationally, ≈ 320 door events a
 * second. One cloud process (`npm run cloud`), BENCH_PEAK_LOCKERS (10,000) lockers connected as
 * lightweight agents (bench/lib/bench-agents.ts, in processes of their own: peak-agents.ts),
 * and at once, open loop, for BENCH_PEAK_SECONDS (180):
 * - BENCH_PEAK_CREATE_RATE (160) order creates/s over HTTP;
 * - each created order, once its code is usable at its locker, placed (PLACED) and then
 *   collected (PICKED_UP) by its agent over MQTT: twice the create rate in door events/s (320);
 * - BENCH_PEAK_READ_RATE (1,000) order reads/s (ids drawn from every order created so far);
 * - BENCH_PEAK_LIST_RATE (50) order lists/s (page 1; every other one filtered by status);
 * - webhooks: the company's notification URL points at a local receiver (BENCH_PEAK_WEBHOOKS=0
 *   leaves it unset), so the outbox carries the events' notifications as it would on the day.
 * Reports p50/p99 of every operation (latency counted from when the request was due, as
 * bench/lib/load.ts's paced sender does), the sync lag (create answered → code usable at the
 * agent), the cloud's event-loop delay and GC pauses, the CPU and memory of every process, the
 * outbox backlog sampled each second, and whether anything was lost: every created order
 * reaches its agent, every event is acknowledged and recorded exactly once as APPLIED, every
 * collected order is COMPLETED, every notification is sent.
 * Targets: p99 < 25 ms for every operation, sync lag p99 < 50 ms, nothing lost.
 * BENCH_PEAK_FACTOR (1) scales every rate of the main phase.
 * BENCH_PEAK_SEARCH=1 then finds the headroom: if the main phase met every target, it raises every
 * rate in steps of BENCH_PEAK_SEARCH_STEP (×1.25) for BENCH_PEAK_SEARCH_SECONDS (60) each, in the
 * same run, until the first target breaks; if it broke one, it lowers them by the same step, each
 * step a whole run of BENCH_PEAK_SECONDS on a freshly seeded database, until every target holds.
 * `headroom` says where the last factor that held every target and the first that broke one are.
 * With BENCH_DATABASE_URL the same runs on PostgreSQL (schema bench_peak, made and dropped).
 * BENCH_PEAK_PROFILE=<dir>: the cloud's CPU profile, written there when it stops.
 * BENCH_PEAK_STATEMENTS=1: the cloud's costliest SQLite statements, printed when it stops.
 * BENCH_PEAK_NODELAY=1: the cloud and the agents with Nagle's algorithm off (an experiment, lib/tcp-nodelay.mjs).
 * Writes bench/results/peak.json. Never part of `npm test`; run it on a quiet machine.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../cloud/storage/database.ts';
import { benchDatabaseUrl, copyToPostgres } from './lib/postgres-copy.ts';
import { ROOT, cpuProfileFlags, killOnExit, startChild, startChildUntil } from './lib/processes.ts';
import { monoMs } from './lib/peak-clock.ts';
import { selfProbe, type Probe, type ProcessFigures } from './lib/server-probe.ts';
import { seed, type SeededLocker } from './lib/sync-seed.ts';
import { round, sleep, stats } from './lib/sync-timing.ts';
import { table } from './lib/load.ts';

const num = (name: string, fallback: number) =>
  process.env[name] !== undefined && process.env[name] !== '' ? Number(process.env[name]) : fallback;
const LOCKERS = num('BENCH_PEAK_LOCKERS', 10_000);
const SECONDS = num('BENCH_PEAK_SECONDS', 180);
const RATES = {
  create: num('BENCH_PEAK_CREATE_RATE', 160),
  read: num('BENCH_PEAK_READ_RATE', 1_000),
  list: num('BENCH_PEAK_LIST_RATE', 50),
};
const WEBHOOKS = process.env.BENCH_PEAK_WEBHOOKS !== '0';
/** BENCH_PEAK_NODELAY=1: the cloud and the agents with Nagle's algorithm off on every socket (lib/tcp-nodelay.mjs), an experiment */
const NODELAY = process.env.BENCH_PEAK_NODELAY === '1' ? ['--import', './bench/lib/tcp-nodelay.mjs'] : [];
const SEARCH = process.env.BENCH_PEAK_SEARCH === '1';
/** BENCH_PEAK_ONLY=sqlite|postgres: one database only, printed and not written to the results file (a diagnosis) */
const ONLY = process.env.BENCH_PEAK_ONLY;
if (ONLY && ONLY !== 'sqlite' && ONLY !== 'postgres') throw new Error('BENCH_PEAK_ONLY must be sqlite or postgres');
/** the main phase's rates, as a multiple of the country's peak */
const FACTOR = num('BENCH_PEAK_FACTOR', 1);
/** BENCH_PEAK_PROFILE=<dir>: the cloud writes a CPU profile there when it stops (summarise it with bench/lib/profile-summary.ts) */
const PROFILE = process.env.BENCH_PEAK_PROFILE ? cpuProfileFlags(process.env.BENCH_PEAK_PROFILE, 1000) : [];
/** BENCH_PEAK_STATEMENTS=1: the cloud times every SQLite statement and prints the costliest when it stops (lib/statement-probe.mjs) */
const STATEMENTS = process.env.BENCH_PEAK_STATEMENTS === '1' ? ['--import', './bench/lib/statement-probe.mjs'] : [];
const SEARCH_STEP = num('BENCH_PEAK_SEARCH_STEP', 1.25);
const SEARCH_SECONDS = num('BENCH_PEAK_SEARCH_SECONDS', Math.min(60, SECONDS));
const SEARCH_MAX_STEPS = num('BENCH_PEAK_SEARCH_MAX_STEPS', 10);
/** lockers per agent process: each agent holds ~4 file descriptors, and a process may hold 20,000 here */
const AGENTS_PER_PROCESS = num('BENCH_PEAK_AGENTS_PER_PROCESS', 2_500);
/** a parcel is placed this long after its code reached the locker, and collected this long after */
const PLACE_AFTER_MS = 200;
const COLLECT_AFTER_MS = 200;
const CELLS_PER_LOCKER = 4; // sync-seed.ts
const TARGET_P99_MS = 25;
const TARGET_SYNC_LAG_P99_MS = 50;
/** how long a run may take to settle (every order usable, every event acknowledged, every notification sent) */
const DRAIN_MS = 60_000;
const TICKS = 100; // USER_HZ

const log = (line: string) => process.stderr.write(`[bench:peak] ${line}\n`);
const BASE = '/api/v1/integration/company';

/** CPU seconds (user + system) a process has used so far, and its resident memory, from /proc. */
function procStat(pid: number): { cpuSeconds: number; rssMb: number } {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return {
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS,
    rssMb: round((Number(fields[21]) * 4096) / 1e6),
  };
}

interface AgentProcess {
  proc: ChildProcess;
  lockers: Set<string>;
  request(msg: any, answer: (m: any) => boolean): Promise<any>;
}

/** The agents, in processes of AGENTS_PER_PROCESS lockers each (peak-agents.ts). */
async function startAgents(
  lockers: SeededLocker[],
  mqttUrl: string,
  dir: string,
  onUsable: (orderId: string, at: number) => void,
  onAcked: (eventId: string, sentAt: number, at: number, orderId: string, kind: 'PLACED' | 'PICKED_UP') => void,
): Promise<AgentProcess[]> {
  const out: AgentProcess[] = [];
  for (let i = 0; i < lockers.length; i += AGENTS_PER_PROCESS) {
    const share = lockers.slice(i, i + AGENTS_PER_PROCESS);
    const proc = fork(path.join(ROOT, 'bench/lib/peak-agents.ts'), [], {
      cwd: ROOT,
      execArgv: [...NODELAY, '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    killOnExit(proc);
    const waiting: Array<{ answer: (m: any) => boolean; resolve: (m: any) => void }> = [];
    proc.on('message', (m: any) => {
      if (m.usable || m.acked) {
        for (const [orderId, at] of m.usable) onUsable(orderId, at);
        for (const [eventId, sentAt, at, orderId, kind] of m.acked) onAcked(eventId, sentAt, at, orderId, kind);
        return;
      }
      const w = waiting.findIndex((x) => x.answer(m));
      if (w >= 0) waiting.splice(w, 1)[0]!.resolve(m);
    });
    proc.once('exit', (code) => code && log(`an agent process exited with ${code}`));
    const a: AgentProcess = {
      proc,
      lockers: new Set(share.map((l) => l.id)),
      request: (msg, answer) =>
        new Promise((resolve) => {
          waiting.push({ answer, resolve });
          proc.send(msg);
        }),
    };
    out.push(a);
  }
  // Connected one process after the other: the cloud checks every login's password (scrypt).
  for (const [k, a] of out.entries()) {
    const share = lockers.slice(k * AGENTS_PER_PROCESS, (k + 1) * AGENTS_PER_PROCESS);
    const t0 = performance.now();
    await a.request(
      { start: { lockers: share, mqttUrl, dir: path.join(dir, `agents-${k}`), cells: CELLS_PER_LOCKER } },
      (m) => m.ready,
    );
    log(
      `${share.length} agents connected in ${Math.round(performance.now() - t0)} ms (process ${k + 1} of ${out.length})`,
    );
  }
  return out;
}

/** An HTTP request that resolves with its status and (for creates) its body; latency is the caller's. */
function httpRequest(
  agent: http.Agent,
  url: URL,
  method: 'GET' | 'POST',
  p: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const h = body
      ? { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
      : headers;
    const r = http.request(
      { agent, host: url.hostname, port: url.port, method, path: p, headers: h, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', () => resolve({ status: 0, body: '' }));
    r.end(body);
  });
}

interface Order {
  id: string;
  locker: number;
  cell: number;
  answeredAt: number;
  usableAt?: number;
  placed?: string;
  collected?: string;
}

interface World {
  cloudUrl: URL;
  cloudPid: number;
  cloudProbe: Probe;
  /**
   * A bare Express process doing nothing, with the cloud's node flags: its loop delay over each
   * phase is the box's own stalls, the baseline beside the cloud's tails (the same run, the same
   * cores; a stall it shows too is not the cloud's).
   */
  bare: { pid: number; probe: Probe };
  key: string;
  lockers: SeededLocker[];
  agents: AgentProcess[];
  storage: Storage;
  orders: Map<string, Order>;
  /** free cell numbers per locker (cells are taken from the create to the collection) */
  freeCells: number[][];
  events: Map<string, { order: Order; kind: 'PLACED' | 'PICKED_UP'; sentAt?: number; ackedAt?: number }>;
  phone: number;
  nextLocker: number;
}

function agentOf(w: World, lockerId: string): AgentProcess {
  return w.agents.find((a) => a.lockers.has(lockerId))!;
}

function sendEvent(w: World, order: Order, kind: 'PLACED' | 'PICKED_UP') {
  const lockerId = w.lockers[order.locker]!.id;
  agentOf(w, lockerId).proc.send({
    event: { lockerId, type: kind, orderId: order.id, cellId: String(order.cell), at: new Date().toISOString() },
  });
}

/** The next locker (round robin) with a free cell, and that cell; undefined when every cell is taken. */
function takeCell(w: World): { locker: number; cell: number } | undefined {
  for (let tried = 0; tried < w.lockers.length; tried++) {
    const locker = w.nextLocker;
    w.nextLocker = (w.nextLocker + 1) % w.lockers.length;
    const cell = w.freeCells[locker]!.pop();
    if (cell !== undefined) return { locker, cell };
  }
  return undefined;
}

/** Samples of one phase, per operation: latency from when each request was due. */
interface PhaseSamples {
  create: number[];
  read: number[];
  list: number[];
  event: number[];
  syncLag: number[];
  createToUsable: number[];
  failures: { create: number; read: number; list: number; noFreeCell: number };
}

async function runPhase(w: World, factor: number, seconds: number) {
  const rates = { create: RATES.create * factor, read: RATES.read * factor, list: RATES.list * factor };
  log(
    `phase ×${factor}: ${round(rates.create)} creates/s, ${round(rates.create * 2)} door events/s, ${round(rates.read)} reads/s, ${round(rates.list)} lists/s for ${seconds} s`,
  );
  const s: PhaseSamples = {
    create: [],
    read: [],
    list: [],
    event: [],
    syncLag: [],
    createToUsable: [],
    failures: { create: 0, read: 0, list: 0, noFreeCell: 0 },
  };
  const created: Order[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const auth = { authorization: `Bearer ${w.key}` };
  const ids = [...w.orders.keys()];
  const phaseOrders = new Set<string>();
  const phaseEvents: string[] = [];
  // The event driver: usable → placed, placed acknowledged → collected, collected → cell free.
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  phaseHooks = {
    usable(order) {
      if (!phaseOrders.has(order.id)) return;
      s.syncLag.push(order.usableAt! - order.answeredAt);
      later(PLACE_AFTER_MS, () => sendEvent(w, order, 'PLACED'));
    },
    acked(order, kind, eventId, latency) {
      if (!phaseOrders.has(order.id)) return;
      s.event.push(latency);
      phaseEvents.push(eventId);
      if (kind === 'PLACED') later(COLLECT_AFTER_MS, () => sendEvent(w, order, 'PICKED_UP'));
      else w.freeCells[order.locker]!.push(order.cell);
    },
  };

  const ops = {
    create: async (due: number) => {
      const place = takeCell(w);
      if (!place) return void s.failures.noFreeCell++;
      const body = JSON.stringify({
        toUserPhone: `+99677${String(w.phone++ % 10_000_000).padStart(7, '0')}`,
        postomatId: w.lockers[place.locker]!.id,
        sendMessage: false,
      });
      const res = await httpRequest(agent, w.cloudUrl, 'POST', `${BASE}/order/create`, auth, body);
      const answeredAt = monoMs();
      if (res.status !== 200) {
        s.failures.create++;
        w.freeCells[place.locker]!.push(place.cell);
        return;
      }
      s.create.push(answeredAt - due);
      const order: Order = { id: (JSON.parse(res.body) as { id: string }).id, ...place, answeredAt };
      phaseOrders.add(order.id);
      created.push(order);
      ids.push(order.id);
      registerOrder(w, order, due);
    },
    read: async (due: number) => {
      if (!ids.length) return;
      const res = await httpRequest(
        agent,
        w.cloudUrl,
        'GET',
        `${BASE}/order/${ids[Math.floor(Math.random() * ids.length)]}`,
        auth,
      );
      if (res.status !== 200) s.failures.read++;
      else s.read.push(monoMs() - due);
    },
    list: async (due: number, k: number) => {
      const res = await httpRequest(
        agent,
        w.cloudUrl,
        'GET',
        `${BASE}/order/list${k % 2 ? '?status=DELIVERED' : ''}`,
        auth,
      );
      if (res.status !== 200) s.failures.list++;
      else s.list.push(monoMs() - due);
    },
  };
  // Usable times of orders of this phase are matched to their start too (created → usable).
  createdDue = new Map();

  const pids = {
    cloud: w.cloudPid,
    bare: w.bare.pid,
    loadGenerator: process.pid,
    ...Object.fromEntries(w.agents.map((a, k) => [`agents${k + 1}`, a.proc.pid!])),
  };
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, procStat(pid).cpuSeconds]));
  const self = selfProbe();
  await w.cloudProbe.start();
  await w.bare.probe.start();
  await self.start();
  await Promise.all(w.agents.map((a) => a.request({ probe: 'start' }, (m) => m.probe === 'started')));
  const backlog: number[] = [];
  const cloudRss: number[] = [];
  const sampler = setInterval(() => {
    cloudRss.push(procStat(w.cloudPid).rssMb);
    void outboxBacklog(w.storage).then((n) => backlog.push(n));
  }, 1_000);

  // Open loop: request k of an operation is due at start + k / rate whatever happened to the
  // others. One ticker fires whatever is due, so 1,000 reads a second need no timer each.
  const start = monoMs() + 20;
  const end = start + seconds * 1000;
  const fired = { create: 0, read: 0, list: 0 };
  const inFlight: Promise<void>[] = [];
  while (monoMs() < end) {
    const now = monoMs();
    for (const op of ['create', 'read', 'list'] as const) {
      for (;;) {
        const due = start + (fired[op] * 1000) / rates[op];
        if (due > now || due >= end) break;
        const k = fired[op]++;
        inFlight.push(ops[op](due, k));
      }
    }
    if (inFlight.length > 5_000) inFlight.splice(0, inFlight.length - 5_000);
    await sleep(1);
  }
  await Promise.all(inFlight);
  // Settle: every order usable at its agent, placed and collected, every event acknowledged.
  const settled = monoMs();
  while (created.some((o) => !o.collected || !w.events.get(o.collected)?.ackedAt)) {
    if (monoMs() - settled > DRAIN_MS) break;
    await sleep(20);
  }
  clearInterval(sampler);
  const cloudFigures = await w.cloudProbe.stop();
  const bareFigures = await w.bare.probe.stop();
  const selfFigures = await self.stop();
  const agentFigures: ProcessFigures[] = [];
  for (const a of w.agents)
    agentFigures.push((await a.request({ probe: 'stop' }, (m) => m.probe && m.probe !== 'started')).probe);
  const elapsed = (monoMs() - start) / 1000;
  const cpuPct = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, round(((procStat(pid).cpuSeconds - cpuBefore[k]!) / elapsed) * 100)]),
  );
  for (const t of timers) clearTimeout(t);
  phaseHooks = undefined;
  agent.destroy();
  for (const o of created) s.createToUsable.push(o.usableAt !== undefined ? o.usableAt - createdDue.get(o.id)! : NaN);

  const lost = await lostAnything(w, created, phaseEvents);
  const statsOf = (v: number[]) =>
    v.length ? stats(v) : { samples: 0, p50Ms: NaN, p95Ms: NaN, p99Ms: NaN, maxMs: NaN };
  const figures = {
    factor,
    seconds,
    rates: {
      creates: round(rates.create),
      doorEvents: round(rates.create * 2),
      reads: round(rates.read),
      lists: round(rates.list),
    },
    latency: {
      orderCreate: statsOf(s.create),
      orderRead: statsOf(s.read),
      orderList: statsOf(s.list),
      doorEvent: statsOf(s.event),
    },
    syncLag: statsOf(s.syncLag),
    createToUsable: statsOf(s.createToUsable.filter((v) => !Number.isNaN(v))),
    failures: s.failures,
    cloud: {
      ...cloudFigures,
      cpuPct: cpuPct.cloud,
      rssMbMax: Math.max(0, ...cloudRss),
      rssMbAtEnd: cloudRss[cloudRss.length - 1] ?? NaN,
    },
    bareProcess: { ...bareFigures, cpuPct: cpuPct.bare },
    loadGenerator: { ...selfFigures, cpuPct: cpuPct.loadGenerator, rssMb: procStat(process.pid).rssMb },
    agentProcesses: agentFigures.map((f, k) => ({
      ...f,
      cpuPct: cpuPct[`agents${k + 1}`],
      rssMb: procStat(w.agents[k]!.proc.pid!).rssMb,
    })),
    outboxBacklog: { max: Math.max(0, ...backlog), atEnd: backlog[backlog.length - 1] ?? 0, samples: backlog.length },
    lost,
  };
  const p99Ok = (x: { samples: number; p99Ms: number }) => x.samples > 0 && x.p99Ms < TARGET_P99_MS;
  const meets = {
    orderCreateP99Under25ms: p99Ok(figures.latency.orderCreate),
    orderReadP99Under25ms: p99Ok(figures.latency.orderRead),
    orderListP99Under25ms: p99Ok(figures.latency.orderList),
    doorEventP99Under25ms: p99Ok(figures.latency.doorEvent),
    syncLagP99Under50ms: figures.syncLag.samples > 0 && figures.syncLag.p99Ms < TARGET_SYNC_LAG_P99_MS,
    nothingLost:
      lost.nothingLost && s.failures.create + s.failures.read + s.failures.list + s.failures.noFreeCell === 0,
  };
  return { ...figures, meets };
}

/** Hooks of the phase running (the agents' reports arrive through `registerOrder`'s maps). */
let phaseHooks:
  | {
      usable(order: Order): void;
      acked(order: Order, kind: 'PLACED' | 'PICKED_UP', eventId: string, latency: number): void;
    }
  | undefined;
let createdDue = new Map<string, number>();
/** Agent reports that came before the create's answer (the sync message can beat it). */
const earlyUsable = new Map<string, number>();

function registerOrder(w: World, order: Order, due: number) {
  w.orders.set(order.id, order);
  createdDue.set(order.id, due);
  const early = earlyUsable.get(order.id);
  if (early !== undefined) {
    earlyUsable.delete(order.id);
    onUsable(w, order.id, early);
  }
}

function onUsable(w: World, orderId: string, at: number) {
  const order = w.orders.get(orderId);
  if (!order) return void earlyUsable.set(orderId, at);
  if (order.usableAt !== undefined) return;
  order.usableAt = at;
  phaseHooks?.usable(order);
}

/** The acknowledgement of an event an agent sent for an order. */
function onAcked(w: World, eventId: string, sentAt: number, at: number, orderId: string, kind: 'PLACED' | 'PICKED_UP') {
  const order = w.orders.get(orderId);
  if (!order) return;
  if (kind === 'PLACED') order.placed = eventId;
  else order.collected = eventId;
  w.events.set(eventId, { order, kind, sentAt, ackedAt: at });
  phaseHooks?.acked(order, kind, eventId, at - sentAt);
}

async function outboxBacklog(storage: Storage): Promise<number> {
  const r = await storage.db
    .selectFrom('outbox_event')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['PENDING', 'SENDING'])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Nothing lost: every order created in the phase reached its agent and was placed and collected
 * (acknowledged), each of its events is recorded once as APPLIED, it is COMPLETED; every
 * notification is sent (webhooks on).
 */
async function lostAnything(w: World, created: Order[], eventIds: string[]) {
  const notUsable = created.filter((o) => o.usableAt === undefined).length;
  const notCollected = created.filter((o) => !o.collected || !w.events.get(o.collected)?.ackedAt).length;
  let recorded = 0;
  let applied = 0;
  for (let i = 0; i < eventIds.length; i += 500) {
    const rows = await w.storage.db
      .selectFrom('locker_event')
      .select(['outcome'])
      .where('eventId', 'in', eventIds.slice(i, i + 500))
      .execute();
    recorded += rows.length;
    applied += rows.filter((r) => r.outcome === 'APPLIED').length;
  }
  let completed = 0;
  const orderIds = created.map((o) => o.id);
  for (let i = 0; i < orderIds.length; i += 500) {
    const rows = await w.storage.db
      .selectFrom('locker_order')
      .select(['status'])
      .where('id', 'in', orderIds.slice(i, i + 500))
      .execute();
    completed += rows.filter((r) => r.status === 'COMPLETED').length;
  }
  let backlog = await outboxBacklog(w.storage);
  const t0 = monoMs();
  while (WEBHOOKS && backlog > 0 && monoMs() - t0 < DRAIN_MS) {
    await sleep(200);
    backlog = await outboxBacklog(w.storage);
  }
  const failedNotifications = Number(
    (
      await w.storage.db
        .selectFrom('outbox_event')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', 'not in', ['PENDING', 'SENDING', 'SENT', 'SKIPPED'])
        .executeTakeFirstOrThrow()
    ).n,
  );
  const out = {
    ordersCreated: created.length,
    notUsableAtAgent: notUsable,
    notCollected,
    eventsAcknowledged: eventIds.length,
    eventsRecorded: recorded,
    eventsApplied: applied,
    ordersCompleted: completed,
    outboxLeftAfterDrain: backlog,
    notificationsNotSent: failedNotifications,
  };
  return {
    ...out,
    nothingLost:
      notUsable === 0 &&
      notCollected === 0 &&
      recorded === eventIds.length &&
      applied === eventIds.length &&
      completed === created.length &&
      backlog === 0 &&
      failedNotifications === 0,
  };
}

const meetsAll = (phase: { meets: Record<string, boolean> }) => Object.values(phase.meets).every(Boolean);
const brokenOf = (phase: { meets: Record<string, boolean> }) =>
  Object.entries(phase.meets)
    .filter(([, ok]) => !ok)
    .map(([k]) => k);

interface Headroom {
  /** 'up': raised from a main phase that met every target; 'down': lowered, each step on a fresh database and cloud */
  direction: 'up' | 'down';
  lastMetFactor: number | null;
  breaksAtFactor: number | null;
  breaks: string[];
  ratesWhereItBreaks?: unknown;
}

/**
 * One database's run on a freshly seeded copy: the mix at `factor`, then (BENCH_PEAK_SEARCH, if
 * every target held) the rates raised in the same run until one breaks.
 */
async function runOn(
  databaseUrl: string,
  env: Record<string, string>,
  key: string,
  lockers: SeededLocker[],
  dir: string,
  factor: number,
  searchUp: boolean,
) {
  const cloud = await startChildUntil(
    'cloud/main.ts',
    {
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_MAX_CONNECTIONS_PER_ADDRESS: '0',
      MQTT_LOGIN_FAILURE_MAX: '0',
      MQTT_MAX_CONNECTIONS: String(LOCKERS + 1_000),
      // The load generator is one address where a country's integrators are many: an open loop
      // at ~1,200 requests a second keeps more than the per-address cap of 64 connections open
      // whenever answers slow down, and the refusals would be counted as the cloud's failures.
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_MAX: '0',
      METRICS_PORT: 'off',
      ...env,
    },
    (m) => (m.msg === 'cloud ready' ? { url: m.url as string, mqtt: m.mqtt as string } : undefined),
    [...NODELAY, ...PROFILE, ...STATEMENTS],
  );
  const storage = await openStorage(databaseUrl, { migrate: false });
  const bare = await startChild('bench/lib/bare-server.ts');
  killOnExit(bare.proc);
  const w: World = {
    cloudUrl: new URL(cloud.ready.url),
    cloudPid: cloud.proc.pid!,
    cloudProbe: cloud.probe,
    bare: { pid: bare.proc.pid!, probe: bare.probe },
    key,
    lockers,
    agents: [],
    storage,
    orders: new Map(),
    freeCells: lockers.map(() => Array.from({ length: CELLS_PER_LOCKER }, (_, i) => CELLS_PER_LOCKER - i)),
    events: new Map(),
    phone: 0,
    nextLocker: 0,
  };
  try {
    const t0 = performance.now();
    w.agents = await startAgents(
      lockers,
      cloud.ready.mqtt,
      dir,
      (orderId, at) => onUsable(w, orderId, at),
      (eventId, sentAt, at, orderId, kind) => onAcked(w, eventId, sentAt, at, orderId, kind),
    );
    log(`${lockers.length} agents connected in ${Math.round((performance.now() - t0) / 1000)} s`);
    const deadline = Date.now() + 120_000;
    while (
      Number(
        (await sql<{ n: number }>`select count(*) as n from locker_link where online = 1`.execute(storage.db)).rows[0]!
          .n,
      ) < lockers.length
    ) {
      if (Date.now() > deadline) throw new Error('timed out: every agent announced');
      await sleep(100);
    }
    // Warm-up (not measured): the JIT and the caches, at a tenth of the rates for a few seconds.
    await runPhase(w, 0.1, 5);
    const main = await runPhase(w, factor, SECONDS);
    printPhase(main);
    const search: Array<Awaited<ReturnType<typeof runPhase>>> = [];
    let headroom: Headroom | undefined;
    if (searchUp && meetsAll(main)) {
      let last = main;
      let lastMet = factor;
      for (let step = 0; step < SEARCH_MAX_STEPS && meetsAll(last); step++) {
        last = await runPhase(w, round(last.factor * SEARCH_STEP), SEARCH_SECONDS);
        printPhase(last);
        search.push(last);
        if (meetsAll(last)) lastMet = last.factor;
      }
      const broken = brokenOf(last);
      headroom = {
        direction: 'up',
        lastMetFactor: lastMet,
        breaksAtFactor: broken.length ? last.factor : null,
        breaks: broken,
        ...(broken.length ? { ratesWhereItBreaks: last.rates } : {}),
      };
      log(
        broken.length
          ? `headroom: the first target breaks at ×${last.factor} (${broken.join(', ')})`
          : `headroom: no target broke up to ×${last.factor}`,
      );
    }
    return { main, ...(headroom ? { search, headroom } : {}) };
  } finally {
    for (const a of w.agents) await a.request({ close: true }, (m) => m.closed).catch(() => undefined);
    await storage.close();
    await cloud.stop();
    await bare.stop();
  }
}

function printPhase(p: Awaited<ReturnType<typeof runPhase>>) {
  const row = (what: string, x: { samples: number; p50Ms: number; p99Ms: number; maxMs: number }, target: string) => ({
    measure: what,
    samples: x.samples,
    'p50 ms': x.p50Ms,
    'p99 ms': x.p99Ms,
    'max ms': x.maxMs,
    target,
  });
  console.log(`\n×${p.factor}, ${p.seconds} s:`);
  console.log(
    table([
      row(`order create (${p.rates.creates}/s, HTTP)`, p.latency.orderCreate, `p99 < ${TARGET_P99_MS}`),
      row(`order read (${p.rates.reads}/s)`, p.latency.orderRead, `p99 < ${TARGET_P99_MS}`),
      row(`order list (${p.rates.lists}/s)`, p.latency.orderList, `p99 < ${TARGET_P99_MS}`),
      row(
        `door event, published → acknowledged (${p.rates.doorEvents}/s, MQTT)`,
        p.latency.doorEvent,
        `p99 < ${TARGET_P99_MS}`,
      ),
      row('sync lag: create answered → code usable at the agent', p.syncLag, `p99 < ${TARGET_SYNC_LAG_P99_MS}`),
    ]),
  );
  console.log(
    `cloud: CPU ${p.cloud.cpuPct}% of a core, RSS max ${p.cloud.rssMbMax} MB, event-loop delay p50/p99/max ${p.cloud.loopDelay.p50Ms}/${p.cloud.loopDelay.p99Ms}/${p.cloud.loopDelay.maxMs} ms, GC ${p.cloud.gc.count} pauses (${p.cloud.gc.pctOfWindow}% of the time, longest ${p.cloud.gc.maxPauseMs} ms)`,
  );
  console.log(
    `beside it, a bare process doing nothing: event-loop delay p99/max ${p.bareProcess.loopDelay.p99Ms}/${p.bareProcess.loopDelay.maxMs} ms (the box's own stalls)`,
  );
  console.log(
    `load generator: CPU ${p.loadGenerator.cpuPct}%, loop delay p99 ${p.loadGenerator.loopDelay.p99Ms} ms; agents: CPU ${p.agentProcesses.map((a) => `${a.cpuPct}%`).join(', ')}; outbox backlog max ${p.outboxBacklog.max}`,
  );
  console.log(
    `lost: ${JSON.stringify(p.lost)}\nfailures: ${JSON.stringify(p.failures)}\nmeets: ${JSON.stringify(p.meets)}`,
  );
}

/** A database seeded afresh for one run, on SQLite or copied to PostgreSQL; `drop` removes it. */
interface Fresh {
  url: string;
  env: Record<string, string>;
  key: string;
  lockers: SeededLocker[];
  drop(): Promise<void>;
}

/**
 * The main phase at BENCH_PEAK_FACTOR on a fresh database and, with BENCH_PEAK_SEARCH, the
 * headroom: raised in the same run while every target holds (runOn), or, when the main phase
 * breaks one, lowered step by step, each step on a database seeded afresh and a cloud and agents
 * started afresh: a run that fell behind leaves a backlog no later phase could be measured on.
 */
async function measureOn(fresh: () => Promise<Fresh>, agentsDir: string) {
  let runs = 0;
  const once = async (factor: number, searchUp: boolean) => {
    const db = await fresh();
    // The agents' stores afresh too (on tmpfs: removed after each run).
    const storesDir = path.join(agentsDir, `run-${++runs}`);
    try {
      return await runOn(db.url, db.env, db.key, db.lockers, storesDir, factor, searchUp);
    } finally {
      await db.drop();
      fs.rmSync(storesDir, { recursive: true, force: true });
    }
  };
  const first = await once(FACTOR, SEARCH);
  if (!SEARCH || meetsAll(first.main)) return first;
  const search: Array<typeof first.main> = [];
  let lowestBroken = first.main;
  let lastMet: number | null = null;
  for (let step = 0; step < SEARCH_MAX_STEPS && lastMet === null; step++) {
    // Three decimals: at two, ×0.02 / 1.25 rounded back to ×0.02 and the search repeated it.
    const factor = Math.round((lowestBroken.factor / SEARCH_STEP) * 1000) / 1000;
    if (factor <= 0) break;
    log(`the mix broke ${brokenOf(lowestBroken).join(', ')} at ×${lowestBroken.factor}: trying ×${factor} afresh`);
    const { main } = await once(factor, false);
    search.push(main);
    if (meetsAll(main)) lastMet = factor;
    else lowestBroken = main;
  }
  const headroom: Headroom = {
    direction: 'down',
    lastMetFactor: lastMet,
    breaksAtFactor: lowestBroken.factor,
    breaks: brokenOf(lowestBroken),
    ratesWhereItBreaks: lowestBroken.rates,
  };
  log(
    lastMet === null
      ? `headroom: every target held at no factor tried (lowest ×${lowestBroken.factor})`
      : `headroom: every target holds at ×${lastMet}; the first breaks at ×${lowestBroken.factor} (${headroom.breaks.join(', ')})`,
  );
  return { ...first, search, headroom };
}

async function main() {
  // The agents' stores on tmpfs: each locker has its own disk; their fsyncs are not this box's.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-peak-'));
  const agentsDir = fs.mkdtempSync(
    path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'bench-peak-agents-'),
  );
  let receiver: Awaited<ReturnType<typeof startChild>> | undefined;
  let seeds = 0;
  /** A freshly seeded SQLite file, its company's notifications pointed at the receiver. */
  const seedFile = async () => {
    const file = path.join(dir, `cloud-${++seeds}.db`);
    log(`seeding ${LOCKERS} lockers`);
    const { key, lockers } = await seed(file, LOCKERS, 0);
    if (receiver) {
      const db = new SQLite(file);
      db.prepare('update locker_company set notificationUrl = ?').run(`${receiver.url}/n`);
      db.close();
    }
    return { file, key, lockers };
  };
  const removeFile = (file: string) => {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  };
  try {
    if (WEBHOOKS) receiver = await startChild('bench/lib/receiver-server.ts', {});
    const pgUrl = benchDatabaseUrl();
    if (ONLY === 'postgres' && !pgUrl) throw new Error('BENCH_PEAK_ONLY=postgres needs BENCH_DATABASE_URL');
    if (ONLY !== 'postgres') log('SQLite');
    const sqlite =
      ONLY === 'postgres'
        ? undefined
        : await measureOn(
            async () => {
              const { file, key, lockers } = await seedFile();
              return { url: file, env: {}, key, lockers, drop: async () => removeFile(file) };
            },
            path.join(agentsDir, 'sqlite'),
          );
    let postgres: Awaited<ReturnType<typeof measureOn>> | undefined;
    if (pgUrl && ONLY !== 'sqlite') {
      log('PostgreSQL');
      postgres = await measureOn(
        async () => {
          const { file, key, lockers } = await seedFile();
          const copy = await copyToPostgres(file, pgUrl, 'bench_peak', log);
          removeFile(file);
          return { url: copy.databaseUrl, env: copy.env, key, lockers, drop: () => copy.drop() };
        },
        path.join(agentsDir, 'pg'),
      );
    }
    if (ONLY || !sqlite) {
      log(`BENCH_PEAK_ONLY=${ONLY}: bench/results/peak.json left as it was`);
      return;
    }
    const out = {
      benchmark: 'peak',
      measuredAt: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, loadavgAtEnd: os.loadavg() },
      lockers: LOCKERS,
      seconds: SECONDS,
      factor: FACTOR,
      rates: { creates: RATES.create, doorEvents: RATES.create * 2, reads: RATES.read, lists: RATES.list },
      webhooks: WEBHOOKS,
      tcpNoDelay: NODELAY.length > 0,
      targets: { p99Ms: TARGET_P99_MS, syncLagP99Ms: TARGET_SYNC_LAG_P99_MS },
      agentKind:
        'lightweight: locker-agent/sync.ts + the real agent store on tmpfs, no boards, in processes of their own',
      sqlite,
      ...(postgres ? { postgres } : {}),
      meets: { ...sqlite.main.meets, ...(postgres ? { postgres: postgres.main.meets } : {}) },
      ...(SEARCH
        ? { headroom: { sqlite: sqlite.headroom, ...(postgres ? { postgres: postgres.headroom } : {}) } }
        : {}),
    };
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results/peak.json'), `${JSON.stringify(out, null, 2)}\n`);
    log('written bench/results/peak.json');
  } finally {
    await receiver?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(agentsDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench:peak failed: ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  },
);
