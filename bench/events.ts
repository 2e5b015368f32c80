/**
 * `npm run bench:events`: outbound events delivered per second to a local receiver (beside bare
 * POSTs to the same receiver at the same concurrency: as many at once as the dispatcher sends to
 * one receiver, its per-origin bound; and, for reference, at its whole concurrency), and the API's p99 while a receiver
 * hangs (beside the same API with no receiver configured). Writes bench/results/events.json.
 * The delivery is measured in BENCH_DELIVERY_ROUNDS (3) pairs taken in turns, with this
 * process's CPU per event and per bare POST.
 * BENCH_EVENTS and BENCH_SECONDS shrink a run. BENCH_EVENTS_PROFILE=<file.cpuprofile> writes a CPU
 * profile of the measured delivery alone (this process: the dispatcher runs in it).
 */
import { createUnitOfWork } from '../cloud/consequences.ts';
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { openStorage, type Storage } from '../cloud/storage/database.ts';
import { createLockerApiKey, createLockerCompany } from '../cloud/services/admin/companies.ts';
import { createPostomat } from '../cloud/services/admin/postomats.ts';
import { createOrder } from '../cloud/services/create-order.ts';
import { transitionOrder } from '../cloud/services/order-transitions.ts';
import { Dispatcher } from '../cloud/events/dispatcher.ts';
import { LogSmsProvider } from '../cloud/events/sms.ts';
import { keepAlivePost } from '../cloud/events/http-post.ts';
import { claimLoopBounds } from '../cloud/events/claim-loop.ts';
import { systemClock } from '../shared/clock.ts';
import { silentLogger } from '../cloud/logger.ts';
import { cpuProfileFlags, startChild, ROOT } from './lib/processes.ts';
import { fixedRate, median, table } from './lib/load.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Pairs of delivery and bare POSTs (BENCH_DELIVERY_ROUNDS): the median pair's ratio is kept. */
const DELIVERY_ROUNDS = Math.max(1, Number(process.env.BENCH_DELIVERY_ROUNDS ?? 3));
/** Windows of each side of the hanging-receiver comparison (BENCH_HANG_ROUNDS): the median p99 is kept. */
const HANG_ROUNDS = Math.max(1, Number(process.env.BENCH_HANG_ROUNDS ?? 3));
const CONCURRENCY = 16;
const log = (line: string) => process.stderr.write(`[bench:events] ${line}\n`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-bench-events-'));
const file = path.join(dir, 'events.db');
const storage = await openStorage(file);
const company = await createLockerCompany(storage.db, { title: 'Events Co' }, new Date());
const { key } = await createLockerApiKey(storage.db, company.id, undefined, new Date());
const locker = await createPostomat(
  storage.db,
  { title: 'Bench locker', lat: 42.87, lng: 74.59 },
  [{ number: 1, size: 'M', board: 0, lock: 1 }],
  new Date(),
);

/** Orders taken through placement and collection: each commits one COMPLETED notification row. */
async function completions(s: Storage, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const uow = createUnitOfWork(s.db, s.changes);
    const o = await createOrder(
      { uow, clock: systemClock },
      {
        companyId: company.id,
        postomatId: locker.id,
        toUserPhone: `+9967${String(i).padStart(8, '0')}`,
        sendMessage: false,
      },
    );
    await uow.run(async (tx) => {
      await transitionOrder(tx, { orderId: o.id, to: 'DELIVERED', cellId: locker.cells[0].id, at: new Date() });
      await transitionOrder(tx, { orderId: o.id, to: 'COMPLETED', at: new Date() });
    });
    ids.push(o.id);
    if ((i + 1) % 1000 === 0) log(`committed ${i + 1} / ${n} events`);
  }
  return ids;
}
const setUrl = (url: string | null) =>
  storage.db.updateTable('locker_company').set({ notificationUrl: url }).where('id', '=', company.id).execute();

/** Runs `work` under the in-process CPU profiler when `file` is given, and writes the profile there. */
async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new inspector.Session();
  session.connect();
  const call = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: 200 });
  await call('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await call('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    log(`delivery profile written to ${file}`);
  }
}

const ok = await startChild('bench/lib/receiver-server.ts', {});
const hanging = await startChild('bench/lib/receiver-server.ts', {}, ['hang']);

try {
  // 1. Delivery throughput, beside bare POSTs to the same receiver.
  await setUrl(`${ok.url}/n`);
  // The dispatcher as the cloud builds it (outbound.ts): kept-alive connections, as many to
  // one receiver as it sends to it at once.
  const { perOrigin } = claimLoopBounds(CONCURRENCY);
  const body = JSON.stringify({ orderId: 'x'.repeat(24), status: 'COMPLETED' });
  /** Sends what is committed: events sent per second, and this process's CPU per event (µs). */
  const dispatch = async (): Promise<{ rate: number; cpuUs: number }> => {
    const count = async (states: ('PENDING' | 'SENDING' | 'SENT')[]) =>
      Number(
        (
          await storage.db
            .selectFrom('outbox_event')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('state', 'in', states)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const [due, before] = [await count(['PENDING', 'SENDING']), await count(['SENT'])];
    // Done when every due event has had its send (counted as it happens, not by polling the
    // table, which would charge the poll to the dispatcher) and its outcome is recorded (stop).
    let delivered = 0;
    let allSent!: () => void;
    const sentAll = new Promise<void>((r) => (allSent = r));
    const pool = keepAlivePost(perOrigin);
    const dispatcher = new Dispatcher({
      db: storage.db,
      dialect: storage.dialect,
      clock: systemClock,
      logger: silentLogger,
      sms: new LogSmsProvider(silentLogger),
      post: pool.post,
      closePost: () => pool.destroy(),
      onDelivered: () => void (++delivered >= due && allSent()),
      options: { concurrency: CONCURRENCY, pollMs: 5 },
    });
    const cpu = process.cpuUsage();
    const started = performance.now();
    dispatcher.start();
    await sentAll;
    await dispatcher.stop();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const sent = (await count(['SENT'])) - before;
    return { rate: Math.round(sent / seconds), cpuUs: Math.round((used.user + used.system) / sent) };
  };
  /** Bare POSTs over kept-alive connections, `inFlight` at a time: the best this client does. */
  const barePosts = async (n: number, inFlight: number): Promise<{ rate: number; cpuUs: number }> => {
    const bare = keepAlivePost(inFlight);
    let next = 0;
    const cpu = process.cpuUsage();
    const bareStart = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < n) await bare.post(`${ok.url}/n`, body, {}, 5000);
      }),
    );
    const used = process.cpuUsage(cpu);
    bare.destroy();
    return {
      rate: Math.round(n / ((performance.now() - bareStart) / 1000)),
      cpuUs: Math.round((used.user + used.system) / n),
    };
  };
  // Unmeasured warm-up of both, so the figures compare optimized code (bench/README.md).
  const warm = Math.max(100, Math.round(EVENTS / 4));
  await completions(storage, warm);
  await dispatch();
  await barePosts(warm, perOrigin);
  await barePosts(warm, CONCURRENCY);
  // Pairs taken in turns, each side first in every other round (this machine's speed drifts
  // within seconds): the ratio of each pair, and the median of them.
  const pairs: { events: { rate: number; cpuUs: number }; bare: { rate: number; cpuUs: number }; ratio: number }[] = [];
  let barePostsAtConcurrency = 0;
  for (let round = 0; round < DELIVERY_ROUNDS; round++) {
    log(`round ${round + 1}/${DELIVERY_ROUNDS}: committing ${EVENTS} events`);
    await completions(storage, EVENTS);
    const measureEvents = () => profiled(round === 0 ? process.env.BENCH_EVENTS_PROFILE : undefined, dispatch);
    // Like for like: the dispatcher sends to one receiver at most `perOrigin` at once (claim-loop.ts),
    // so a receiver sees that many requests in flight from it, not CONCURRENCY.
    const measureBare = () => barePosts(EVENTS, perOrigin);
    let events: { rate: number; cpuUs: number };
    let bare: { rate: number; cpuUs: number };
    if (round % 2 === 0) {
      events = await measureEvents();
      bare = await measureBare();
    } else {
      bare = await measureBare();
      events = await measureEvents();
    }
    pairs.push({ events, bare, ratio: Math.round((100 * events.rate) / bare.rate) / 100 });
    log(
      `round ${round + 1}/${DELIVERY_ROUNDS}: ${events.rate} events/s (${events.cpuUs} µs CPU each), bare POSTs ${bare.rate}/s (${bare.cpuUs} µs each) ${perOrigin} at a time: ${pairs[round]!.ratio}`,
    );
  }
  barePostsAtConcurrency = (await barePosts(EVENTS, CONCURRENCY)).rate;
  const middle = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor(pairs.length / 2)]!;
  const eventsPerSecond = middle.events.rate;
  const barePostsPerSecond = middle.bare.rate;
  log(
    `median pair: ${eventsPerSecond} events/s, bare POSTs ${barePostsPerSecond}/s ${perOrigin} at a time (${barePostsAtConcurrency}/s ${CONCURRENCY} at a time)`,
  );

  // 2. The API while a receiver hangs: a backlog whose every send waits out its timeout.
  await setUrl(`${hanging.url}/n`);
  const backlog = await completions(storage, Math.min(EVENTS, 1000));
  await storage.close();
  // WEBHOOK_ALLOW_HOSTS: the receiver is on loopback, which the outbound-target rule refuses
  // otherwise (without it every send failed at once and the receiver never saw one).
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: file,
    RATE_LIMIT_MAX: '0',
    MQTT_PORT: '0',
    EVENT_TIMEOUT_MS: '5000',
    EVENT_CONCURRENCY: String(CONCURRENCY),
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    // Two clouds run side by side: neither takes the metrics port.
    METRICS_PORT: 'off',
  };
  const read = { path: `/api/v1/integration/company/order/${backlog[0]}`, headers: { authorization: `Bearer ${key}` } };
  // The same API with nothing to send: a copy of the database with the backlog cleared.
  const quietFile = `${file}.quiet`;
  fs.copyFileSync(file, quietFile);
  const s2 = await openStorage(quietFile);
  await s2.db
    .updateTable('outbox_event')
    .set({ state: 'SKIPPED', error: 'bench: cleared' })
    .where('state', 'in', ['PENDING', 'SENDING'])
    .execute();
  await s2.db.updateTable('locker_company').set({ notificationUrl: null }).execute();
  await s2.close();
  // Both clouds run side by side and are measured in turns, HANG_ROUNDS windows each: a p99 of
  // a few milliseconds over one window moves with one GC pause or a neighbour's burst, so each
  // side's figure is the median of its windows, taken alternately under the same conditions.
  // BENCH_EVENTS_HANG_PROFILE=<dir>: CPU profiles of the cloud whose receiver hangs (a diagnosis).
  const hangProfile = process.env.BENCH_EVENTS_HANG_PROFILE;
  const withHang = await startChild('cloud/main.ts', env, [], hangProfile ? cpuProfileFlags(hangProfile, 500) : []);
  const quiet = await startChild('cloud/main.ts', { ...env, DATABASE_URL: quietFile });
  await new Promise((r) => setTimeout(r, 500));
  const hangRuns: Awaited<ReturnType<typeof fixedRate>>[] = [];
  const quietRuns: Awaited<ReturnType<typeof fixedRate>>[] = [];
  try {
    // Both answer the read: a figure of error answers would measure nothing.
    for (const [name, c] of [
      ['hanging', withHang],
      ['quiet', quiet],
    ] as const) {
      const res = await fetch(`${c.url}${read.path}`, { headers: read.headers });
      if (!res.ok) throw new Error(`the ${name} cloud answers the order read with ${res.status}: ${await res.text()}`);
    }
    for (let round = 0; round < HANG_ROUNDS; round++) {
      // With the server's event-loop delay and GC pauses beside the latency (lib/load.ts fixedRate).
      const measureHang = async () =>
        hangRuns.push(
          await fixedRate({ name: 'GET /order/{id}, receiver hanging', url: withHang.url, req: read }, SECONDS),
        );
      const measureQuiet = async () =>
        quietRuns.push(await fixedRate({ name: 'GET /order/{id}, no receiver', url: quiet.url, req: read }, SECONDS));
      // Each side goes first in every other round: neither always meets the machine as the other left it.
      if (round % 2 === 0) await measureHang().then(measureQuiet);
      else await measureQuiet().then(measureHang);
      log(
        `round ${round + 1}/${HANG_ROUNDS}: p99 ${hangRuns[round]!.p99} ms hanging, ${quietRuns[round]!.p99} ms quiet`,
      );
    }
  } finally {
    await withHang.stop();
    await quiet.stop();
  }
  const hangFigures = median(hangRuns, (r) => r.p99);
  const quietFigures = median(quietRuns, (r) => r.p99);

  const rows = [
    {
      measure: `events delivered / s (dispatcher, ${CONCURRENCY} in flight, ${perOrigin} per receiver)`,
      value: eventsPerSecond,
      baseline: `${barePostsPerSecond} bare POST/s, ${perOrigin} in flight`,
    },
    {
      measure: `GET /order/{id} p99 ms @200/s, receiver hanging (median of ${HANG_ROUNDS})`,
      value: hangFigures.p99,
      baseline: `${quietFigures.p99} ms with no receiver`,
    },
    {
      measure: 'GET /order/{id} p50 ms @200/s, receiver hanging',
      value: hangFigures.p50,
      baseline: `${quietFigures.p50} ms with no receiver`,
    },
  ];
  console.log(table(rows));
  const out = {
    when: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg() },
    events: EVENTS,
    concurrency: CONCURRENCY,
    perOrigin,
    delivery: {
      eventsPerSecond,
      barePostsPerSecond,
      barePostsInFlight: perOrigin,
      barePostsPerSecondAtConcurrency: barePostsAtConcurrency,
      ratio: middle.ratio,
      rounds: DELIVERY_ROUNDS,
      ratios: pairs.map((p) => p.ratio),
      /** this process's CPU per event sent (the dispatcher) and per bare POST, in the median pair (µs) */
      cpuUsPerEvent: middle.events.cpuUs,
      cpuUsPerBarePost: middle.bare.cpuUs,
      pairs,
      warmUpEvents: warm,
    },
    apiWhileReceiverHangs: {
      rounds: HANG_ROUNDS,
      hanging: hangFigures,
      noReceiver: quietFigures,
      p99sHanging: hangRuns.map((r) => r.p99),
      p99sNoReceiver: quietRuns.map((r) => r.p99),
      p99Ratio: Math.round((100 * hangFigures.p99) / quietFigures.p99) / 100,
    },
    // The targets of issue 23, as booleans.
    meets: {
      eventsAtLeast70PctOfBarePosts: middle.ratio >= 0.7,
      hangingReceiverP99Within1_2xOfNone: hangFigures.p99 <= 1.2 * quietFigures.p99,
    },
  };
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench/results/events.json'), `${JSON.stringify(out, null, 2)}\n`);
  log('written bench/results/events.json');
} finally {
  await ok.stop();
  await hanging.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
