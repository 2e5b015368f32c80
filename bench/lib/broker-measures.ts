/**
 * bench:sync's broker measures, on the cloud's embedded broker module run alone
 * (bench/lib/broker-probe.ts): a bare publish → receive baseline, memory and connect time with
 * many lockers, logins at the human-password scrypt cost.
 */
import readline from 'node:readline';
import mqtt, { type MqttClient } from 'mqtt';
import { AGENT_SECRET_SCRYPT_N } from '../../cloud/services/admin/postomats.ts';
import { CLOUD_USERNAME } from '../../cloud/sync/broker.ts';
import { topics } from '../../shared/mqtt/index.ts';
import { cpuProfileFlags, startChildUntil } from './processes.ts';
import type { Probe as LoopProbe } from './server-probe.ts';
import type { SeededLocker } from './sync-seed.ts';
import { atRate, perSecond, round, sleep, stats, untilAll } from './sync-timing.ts';

function connectClient(url: string, l: SeededLocker, keepalive: number): Promise<{ client: MqttClient; ms: number }> {
  const start = performance.now();
  const client = mqtt.connect(url, {
    clientId: `locker-${l.id}`,
    username: l.id,
    password: l.password,
    reconnectPeriod: 0,
    keepalive,
    connectTimeout: 120_000,
  });
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve({ client, ms: performance.now() - start }));
    client.once('error', reject);
  });
}

/** `keepalive` in seconds: what real agents use (DEFAULT_KEEPALIVE_SECONDS) when the idle cost of pings matters. */
export async function connectAll(url: string, lockers: SeededLocker[], concurrency: number, keepalive = 300) {
  const clients: MqttClient[] = new Array(lockers.length);
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < lockers.length) {
        const i = next++;
        const { client, ms } = await connectClient(url, lockers[i], keepalive);
        clients[i] = client;
        times.push(ms);
      }
    }),
  );
  return { clients, times, wallMs: performance.now() - start };
}

export interface Probe {
  /** the probe process, for /proc readings */
  pid: number;
  url: string;
  secret: string;
  /** the probe's memory after a GC, and how many clients its broker has */
  mem(): Promise<{ rss: number; heapUsed: number; heapTotal: number; external: number; clients: number }>;
  /** writes a heap snapshot of the probe to `file` (after a GC): what a connected locker is made of */
  heap(file: string): Promise<void>;
  /** its event-loop delay and GC pauses over a window (bench/lib/loop-probe.mjs) */
  loop: LoopProbe;
}

/** Runs `fn` against a fresh broker-probe process (bench/lib/broker-probe.ts) on the seeded database. */
export async function withProbe<T>(file: string, fn: (probe: Probe) => Promise<T>): Promise<T> {
  const child_ = await startChildUntil(
    'bench/lib/broker-probe.ts',
    { DATABASE_URL: file },
    (m) => (m.port ? (m as { port: number; secret: string }) : undefined),
    ['--expose-gc', ...(process.env.BENCH_PROBE_PROFILE ? cpuProfileFlags(process.env.BENCH_PROBE_PROFILE, 2000) : [])],
  );
  const lines = readline.createInterface({ input: child_.proc.stdout! });
  try {
    return await fn({
      pid: child_.proc.pid!,
      url: `mqtt://127.0.0.1:${child_.ready.port}`,
      secret: child_.ready.secret,
      loop: child_.probe,
      heap: (file) =>
        new Promise((resolve) => {
          const onLine = (l: string) => {
            if (!l.startsWith('{"heap"')) return;
            lines.off('line', onLine);
            resolve();
          };
          lines.on('line', onLine);
          child_.proc.stdin!.write(`heap ${file}\n`);
        }),
      mem: () =>
        new Promise((resolve) => {
          // The loop probe answers on the same stdout: its lines are not this answer.
          const onLine = (l: string) => {
            if (l.startsWith('{"loopDelay"')) return;
            lines.off('line', onLine);
            resolve(JSON.parse(l));
          };
          lines.on('line', onLine);
          child_.proc.stdin!.write('mem\n');
        }),
    });
  } finally {
    lines.close();
    await child_.stop();
  }
}

/** Baseline: publish → receive over the same broker code, to as many connected lockers, at the same rate. */
export async function barePublishReceive(
  probe: Probe,
  lockers: SeededLocker[],
  load: { orders: number; rate: number; log: (line: string) => void },
) {
  const { orders: ORDERS, rate: RATE, log } = load;
  const receivers = await connectAll(probe.url, lockers, 50);
  const received = new Map<string, number>();
  await Promise.all(
    receivers.clients.map((c, i) => {
      c.on('message', (_t, payload) => received.set(JSON.parse(payload.toString()).orderId, performance.now()));
      return c.subscribeAsync(topics.sync(lockers[i].id), { qos: 1 });
    }),
  );
  const cloud = await mqtt.connectAsync(probe.url, {
    clientId: 'cloud-bench',
    username: CLOUD_USERNAME,
    password: probe.secret,
    reconnectPeriod: 0,
  });
  const sent = new Map<string, number>();
  // About the size of a one-order sync message.
  const payload = (orderId: string) =>
    JSON.stringify({
      v: '1.0',
      version: 7,
      full: false,
      since: 6,
      orderId,
      upserts: [
        {
          orderId,
          codes: { DOWN: '1234', UP: '5678', SUBTRACT: '9012' },
          notPaidAmount: 0,
          status: 'CREATED',
          cellId: null,
        },
      ],
      removals: [],
    });
  log(`baseline: ${ORDERS} bare publishes at ${RATE}/s to ${lockers.length} connected lockers`);
  // The broker process's event-loop delay and GC over the same window, as the cloud's beside the orders.
  await probe.loop.start();
  await atRate(ORDERS, RATE, async (i) => {
    const id = `o${i}`;
    sent.set(id, performance.now());
    await cloud.publishAsync(topics.sync(lockers[i % lockers.length].id), payload(id), { qos: 1 });
  });
  await untilAll('every bare publish received', () => received.size >= ORDERS);
  const brokerProcess = await probe.loop.stop();
  await cloud.endAsync();
  await Promise.all(receivers.clients.map((c) => c.endAsync(true)));
  return { ...stats([...sent].map(([id, t]) => received.get(id)! - t)), brokerProcess };
}

/** How long the lockers stay connected before the settled reading: V8 gives the burst's heap back within ~20 s. */
const SETTLE_MS = 30_000;

/**
 * A fresh broker's memory before and after `lockers` connect, and how long they take. Read at
 * once, the RSS holds what the burst of logins leaves behind for a while: the V8 heap grown for
 * the burst's garbage (with the cloud's 64 MB semi-spaces, the young generation alone grows by
 * ~100 MB), scrypt's working memory in the thread pool, read buffers. V8's memory reducer gives
 * the heap back when the process goes quiet: in runs of 10,000 lockers the heap's committed size
 * fell from ~21 to ~8 KB per locker within 10 s and the RSS from ~24 to ~12 KB within 20 s. So
 * the figure of record is read after SETTLE_MS with the lockers still connected (`settled*`),
 * with its parts: the heap in use, the heap committed, and the rest (the process's native memory:
 * libuv handles, TCP wraps, allocator pages). (A second wave of the same lockers, the steady
 * figure of an earlier version, read less than nothing: it reused the first wave's memory.)
 */
export async function manyLockers(probe: Probe, lockers: SeededLocker[], log: (line: string) => void) {
  const before = await probe.mem();
  log(`connecting ${lockers.length} lockers`);
  const many = await connectAll(probe.url, lockers, 200);
  await sleep(1000);
  const after = await probe.mem();
  log(`${lockers.length} lockers connected; memory read again in ${SETTLE_MS / 1000} s`);
  await sleep(SETTLE_MS);
  const settled = await probe.mem();
  await Promise.all(many.clients.map((c) => c.endAsync(true)));
  const perLocker = (a: number, b: number) => round((b - a) / 1024 / lockers.length);
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
    /** a second after the burst: with its one-off memory */
    rssPerLockerKb: perLocker(before.rss, after.rss),
    heapPerLockerKb: perLocker(before.heapUsed, after.heapUsed),
    /** SETTLE_MS later, the lockers still connected: what a connected locker costs */
    settledAfterMs: SETTLE_MS,
    settledClients: settled.clients,
    settledRssPerLockerKb: perLocker(before.rss, settled.rss),
    settledHeapUsedPerLockerKb: perLocker(before.heapUsed, settled.heapUsed),
    settledHeapCommittedPerLockerKb: perLocker(before.heapTotal, settled.heapTotal),
    settledOutsideHeapPerLockerKb: perLocker(before.rss - before.heapTotal, settled.rss - settled.heapTotal),
  };
}

/** Logins at the human-password scrypt cost, on a sample, extrapolated to the whole fleet. */
export async function humanCostLogins(probe: Probe, sample: SeededLocker[], fleet: number) {
  const r = await connectAll(probe.url, sample, 8);
  await Promise.all(r.clients.map((c) => c.endAsync(true)));
  const rate = perSecond(sample.length, r.wallMs);
  return {
    sample: sample.length,
    scryptCost: 'N=16384 (the human-password cost, for comparison)',
    connectsPerSecond: rate,
    connect: stats(r.times),
    secondsFor: { lockers: fleet, seconds: Math.round(fleet / rate) },
  };
}
