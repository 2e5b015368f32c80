/**
 * Bench-only diagnosis (bench:peak with BENCH_PEAK_STATEMENTS=1): preloaded into the cloud
 * (`--import`), it times every better-sqlite3 statement the process runs, on either of its
 * connections, and when the process exits writes to stderr the statements that took the most
 * time in all: total ms, runs, µs per run, the longest run and the SQL's first 160 characters,
 * then those whose longest run blocked the event loop for 5 ms or more. A CPU profile
 * shows SQLite's time only as "executeQuery"; this says which statement it was.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';

const SQLite = createRequire(path.join(process.cwd(), 'package.json'))('better-sqlite3');
const probe = new SQLite(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('select 1'));
probe.close();

const times = new Map();
/** a statement this long is a stall of the event loop worth naming */
const SLOW_MS = 5;
/** the slow runs' spans and the GC pauses' (performance.now() times), bounded, to see which overlap */
const MAX_SPANS = 20_000;
const slowSpans = [];
const gcSpans = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (gcSpans.length < MAX_SPANS) gcSpans.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = Statement[method];
  Statement[method] = function (...args) {
    const started = performance.now();
    const usage = process.resourceUsage();
    try {
      return original.apply(this, args);
    } finally {
      const key = this.source.replace(/\s+/g, ' ').slice(0, 160);
      const t = times.get(key) ?? { ms: 0, runs: 0, maxMs: 0, slow: 0 };
      const took = performance.now() - started;
      t.ms += took;
      t.runs++;
      if (took > t.maxMs) t.maxMs = took;
      if (took >= SLOW_MS) {
        // Was the stall the statement's own work, a wait it chose (a lock: a voluntary context
        // switch) or the machine's (the thread descheduled: involuntary)? Process-wide figures.
        const after = process.resourceUsage();
        t.slow++;
        if (slowSpans.length < MAX_SPANS) slowSpans.push([started, started + took]);
        t.slowCpuMs =
          (t.slowCpuMs ?? 0) +
          (after.userCPUTime + after.systemCPUTime - usage.userCPUTime - usage.systemCPUTime) / 1000;
        t.slowMs = (t.slowMs ?? 0) + took;
        t.voluntary = (t.voluntary ?? 0) + after.voluntaryContextSwitches - usage.voluntaryContextSwitches;
        t.involuntary = (t.involuntary ?? 0) + after.involuntaryContextSwitches - usage.involuntaryContextSwitches;
      }
      times.set(key, t);
    }
  };
}

process.on('exit', () => {
  const rows = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 40);
  const total = [...times.values()].reduce((a, t) => a + t.ms, 0);
  const lines = rows.map(
    ([sql, t]) =>
      `${t.ms.toFixed(0).padStart(8)} ms ${String(t.runs).padStart(8)} runs ${((t.ms / t.runs) * 1000).toFixed(0).padStart(6)} µs  max ${t.maxMs.toFixed(1).padStart(6)} ms  ${sql}`,
  );
  const slow = [...times]
    .filter(([, t]) => t.slow > 0)
    .sort((a, b) => b[1].maxMs - a[1].maxMs)
    .map(
      ([sql, t]) =>
        `${t.maxMs.toFixed(1).padStart(8)} ms max ${String(t.slow).padStart(6)} runs >= ${SLOW_MS} ms, in them ${t.slowMs.toFixed(0)} ms of which CPU ${t.slowCpuMs.toFixed(0)} ms (process), context switches ${t.voluntary} voluntary ${t.involuntary} involuntary  ${sql}`,
    );
  lines.push(`[statement-probe] statements that ran ${SLOW_MS} ms or more at least once:`, ...slow);
  // A GC pause inside a statement's span: the row's allocation started a collection there.
  const gcs = [...gcSpans].sort((a, b) => a[0] - b[0]);
  let withGc = 0;
  let gcMs = 0;
  for (const [from, to] of slowSpans) {
    let inside = 0;
    for (const [a, b] of gcs) if (a < to && b > from) inside += Math.min(b, to) - Math.max(a, from);
    if (inside > 0) withGc++;
    gcMs += inside;
  }
  const slowMs = slowSpans.reduce((a, [f, t]) => a + t - f, 0);
  lines.push(
    `[statement-probe] ${slowSpans.length} slow runs (${slowMs.toFixed(0)} ms): ${withGc} had a GC pause inside (${gcMs.toFixed(0)} ms of GC); ${gcSpans.length} GC pauses in all`,
  );
  process.stderr.write(`[statement-probe] ${total.toFixed(0)} ms in statements, the top 40:\n${lines.join('\n')}\n`);
});
