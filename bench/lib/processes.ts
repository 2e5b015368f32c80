/** Child processes for benchmarks: each prints one JSON line with its port when ready. */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childProbe, registerProbe, type Probe } from './server-probe.ts';
import { build } from '../../scripts/bundles.mjs';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Child {
  proc: ChildProcess;
  url: string;
  /** its event-loop delay and GC pauses over a window (loop-probe.mjs, preloaded in every child) */
  probe: Probe;
  stop(): Promise<void>;
}

/**
 * Preloaded into every child: the probe that measures its event-loop delay and GC pauses when
 * asked (SIGUSR2); it costs nothing until then.
 */
const PROBE_FLAGS = ['--import', './bench/lib/loop-probe.mjs'];

/**
 * The node flags `npm run cloud` runs with, read from package.json so a benchmark cannot drift
 * from what operators run. Every process a benchmark starts gets them, the bare baseline too: a
 * ratio to bare then compares the applications, not two runtime configurations.
 */
function cloudNodeFlags(): string[] {
  const script: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.cloud;
  const words = script.split(/\s+/);
  const launcher = words.indexOf('scripts/run-built.mjs');
  if (words[0] !== 'node' || launcher < 0)
    throw new Error(`package.json's cloud script is not "node <flags> scripts/run-built.mjs cloud": ${script}`);
  return words.slice(1, launcher);
}
const CLOUD_NODE_FLAGS = cloudNodeFlags();

/**
 * Every child runs bundled, as `npm run cloud` runs the cloud (scripts/bundles.mjs): from source
 * through tsx an idle process pays tsx's loader for nothing, and a baseline run one way beside a
 * cloud run the other would compare two runtimes. Bundles are made once per script and run.
 */
const bundled = new Map<string, string>();
async function bundleOf(script: string): Promise<string> {
  let js = bundled.get(script);
  if (!js) {
    js = (await build(script)).js;
    bundled.set(script, js);
  }
  return js;
}

/**
 * Node flags that make a child write a V8 CPU profile into `dir` when it exits, sampling every
 * `intervalUs` (node's 1 ms default costs an idle process more than its own work).
 */
export const cpuProfileFlags = (dir: string, intervalUs: number): string[] => [
  '--cpu-prof',
  `--cpu-prof-dir=${dir}`,
  `--cpu-prof-interval=${intervalUs}`,
];

/** `node <cloud flags> <extra flags> <the script's bundle> <args>` in the project folder. */
async function spawnScript(
  script: string,
  env: Record<string, string>,
  stdin: 'ignore' | 'pipe',
  nodeArgs: string[] = [],
  args: string[] = [],
): Promise<ChildProcess> {
  const js = await bundleOf(script);
  return spawn(process.execPath, [...CLOUD_NODE_FLAGS, ...PROBE_FLAGS, ...nodeArgs, js, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: [stdin, 'pipe', 'inherit'],
  });
}

/** Starts a script as `spawnScript` does; resolves on the first stdout line with a port, or a "cloud ready" log line. */
export async function startChild(
  script: string,
  env: Record<string, string> = {},
  args: string[] = [],
  nodeArgs: string[] = [],
): Promise<Child> {
  const proc = await spawnScript(script, env, 'ignore', nodeArgs, args);
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    proc.stdout!.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        try {
          const msg = JSON.parse(line);
          const url = msg.url ?? (msg.port ? `http://127.0.0.1:${msg.port}` : undefined);
          if (url) {
            proc.stdout!.removeAllListeners('data');
            proc.stdout!.resume();
            proc.removeAllListeners('exit');
            const probe = childProbe(proc);
            registerProbe(url, probe);
            resolve({ proc, url, probe, stop: () => stopChild(proc) });
            return;
          }
        } catch {
          /* not a JSON line yet */
        }
      }
    });
  });
}

/** SIGTERM and its exit; at once for a child already gone (a benchmark may stop a cloud early). */
function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    proc.once('exit', () => r());
    proc.kill('SIGTERM');
  });
}

/**
 * `instances` cloud processes on one database (a PostgreSQL copy, postgres-copy.ts), each with
 * its own embedded broker (HTTP benchmarks need no shared broker).
 */
export async function startClouds(
  databaseUrl: string,
  env: Record<string, string>,
  instances: number,
): Promise<Child[]> {
  const clouds: Child[] = [];
  for (let i = 0; i < instances; i++) {
    clouds.push(
      await startChild('cloud/main.ts', {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        RATE_LIMIT_MAX: '0',
        LOG_LEVEL: 'info',
        MQTT_PORT: '0',
        METRICS_PORT: 'off',
        ...env,
      }),
    );
  }
  return clouds;
}

const CHILD_PROBLEMS_SHOWN = 20;

/**
 * Never leave a child behind, whatever way this process ends. The listener goes once the child
 * has ended, so that a benchmark starting many children in turn (bench:peak's phases) does not
 * pile them up.
 */
export function killOnExit(proc: ChildProcess): void {
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  proc.once('exit', () => process.removeListener('exit', kill));
}

/** Starts a script as `spawnScript` does; resolves with the first stdout JSON line that `pick` accepts. */
export async function startChildUntil<T>(
  script: string,
  env: Record<string, string>,
  pick: (msg: any) => T | undefined,
  nodeArgs: string[] = [],
): Promise<{ proc: ChildProcess; ready: T; probe: Probe; stop(): Promise<void> }> {
  const proc = await spawnScript(script, env, 'pipe', nodeArgs);
  killOnExit(proc);
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) => reject(new Error(`${script} exited with ${code}`));
    proc.once('exit', failed);
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
      // From now on only the child's warnings and errors are shown (the first few), so a figure
      // spoiled by a refusal or a failure says why.
      let shown = 0;
      lines.on('line', (next) => {
        if (shown >= CHILD_PROBLEMS_SHOWN || !/"level":"(warn|error)"/.test(next)) return;
        shown++;
        process.stderr.write(`[${path.basename(script)}] ${next.slice(0, 500)}\n`);
      });
      proc.removeListener('exit', failed);
      resolve({ proc, ready, probe: childProbe(proc), stop: () => stopChild(proc) });
    });
  });
}

/** The environment of a benchmarked cloud on `databaseUrl` (its own ports, no rate limit, no metrics listener). */
export const CLOUD_ENV = (databaseUrl: string): Record<string, string> => ({
  PORT: '0',
  HOST: '127.0.0.1',
  DATABASE_URL: databaseUrl,
  RATE_LIMIT_MAX: '0',
  LOG_LEVEL: 'info',
  MQTT_PORT: '0',
  METRICS_PORT: 'off',
});

export interface SeededCloud<S> {
  seed: S;
  /** the cloud (`npm run cloud`) on the seeded SQLite file */
  cloud: Child;
  /** the seeded SQLite file (copied to PostgreSQL when BENCH_DATABASE_URL is set) */
  file: string;
  /** the bare Express baseline */
  bare: Child;
  /** stops both and deletes the database (unless BENCH_KEEP keeps it) */
  cleanup(): Promise<void>;
}

/**
 * Seeds a fresh SQLite file in a temporary folder, then starts the cloud on it and the bare
 * baseline beside it. With BENCH_KEEP=<folder>, the database and what the seed returned are kept
 * there (bench.db, seed.json) and reused by the next run with the same folder and sizes, so a
 * developer can measure again without seeding for minutes; other sizes seed afresh.
 */
export async function seededCloud<S>(
  what: string,
  log: (line: string) => void,
  seed: (file: string) => Promise<S>,
): Promise<SeededCloud<S>> {
  const keep = process.env.BENCH_KEEP ? path.resolve(process.env.BENCH_KEEP) : undefined;
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'plk-bench-'));
  const file = path.join(dir, 'bench.db');
  const seedFile = path.join(dir, 'seed.json');
  let seeded: S;
  const kept =
    keep && fs.existsSync(file) && fs.existsSync(seedFile)
      ? (JSON.parse(fs.readFileSync(seedFile, 'utf8')) as { what: string; seed: S })
      : undefined;
  if (kept?.what === what) {
    log(`reusing ${file} (BENCH_KEEP) with ${what}; delete ${dir} to seed afresh`);
    seeded = kept.seed;
  } else {
    if (keep) {
      fs.mkdirSync(dir, { recursive: true });
      for (const f of fs.readdirSync(dir).filter((f) => f.startsWith('bench.db') || f === 'seed.json'))
        fs.rmSync(path.join(dir, f));
    }
    const t0 = Date.now();
    log(`seeding ${what} into ${file}`);
    seeded = await seed(file);
    log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s (${(fs.statSync(file).size / 1e6).toFixed(0)} MB)`);
    // Written last: a seed cut short leaves no seed.json, so the next run seeds again.
    if (keep) fs.writeFileSync(seedFile, JSON.stringify({ what, seed: seeded }));
  }
  await readThrough(file, log);
  const cloud = await startChild('cloud/main.ts', CLOUD_ENV(file));
  const bare = await startChild('bench/lib/bare-server.ts');
  return {
    seed: seeded,
    cloud,
    file,
    bare,
    async cleanup() {
      await cloud.stop();
      await bare.stop();
      if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Reads the database file once, so its pages are in the OS page cache before anything is
 * measured. A kept database can have been evicted since the last run; its first random reads
 * then wait on the disk (milliseconds each here: creates fell from ~300 to ~50 req/s, and one
 * order-read run to 29% of bare), which measures the disk, not the endpoint.
 */
async function readThrough(file: string, log: (line: string) => void): Promise<void> {
  const t0 = Date.now();
  let bytes = 0;
  for (const f of [file, `${file}-wal`].filter((f) => fs.existsSync(f))) {
    for await (const chunk of fs.createReadStream(f, { highWaterMark: 1 << 20 })) bytes += (chunk as Buffer).length;
  }
  log(
    `read ${(bytes / 1e6).toFixed(0)} MB of database into the page cache in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}
