/**
 * The event loop's delay and the GC pauses of this process over a window: what tells a latency
 * tail caused by the server's own work (a long turn, a major GC) from one caused by a busy
 * machine. Plain JavaScript: loop-probe.mjs preloads it before tsx is loaded.
 *
 * Used two ways: in a benchmarked child process through loop-probe.mjs (SIGUSR2), and in the
 * benchmark's own process (its load generator and agents, whose stalls count in what it measures).
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
/** perf_hooks' gc kinds (NODE_PERFORMANCE_GC_*). */
const GC_KINDS = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };

const round = (v) => Math.round(v * 100) / 100;

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

/** A probe that is off until `start()`; `stop()` returns the figures of the window and turns it off. */
export function createProbe(resolutionMs = RESOLUTION_MS) {
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  // Node's histogram records the time between two firings of its timer, the sampling interval
  // included (an idle process reads ~10 ms at a 10 ms resolution): the delay is what is beyond it.
  const ms = (ns) => Math.max(0, round(ns / 1e6 - resolutionMs));
  let pauses = [];
  let startedAt = 0;
  let on = false;
  const take = (entries) => {
    for (const e of entries) pauses.push({ ms: e.duration, kind: GC_KINDS[e.detail?.kind ?? e.kind] ?? 'other' });
  };
  const observer = new PerformanceObserver((list) => take(list.getEntries()));
  return {
    get on() {
      return on;
    },
    start() {
      pauses = [];
      h.reset();
      h.enable();
      observer.observe({ entryTypes: ['gc'] });
      startedAt = performance.now();
      on = true;
    },
    stop() {
      const windowMs = performance.now() - startedAt;
      // Entries are delivered to the callback asynchronously: take the ones still buffered.
      take(observer.takeRecords());
      observer.disconnect();
      h.disable();
      on = false;
      const sorted = pauses.map((p) => p.ms).sort((a, b) => a - b);
      const totalMs = sorted.reduce((s, v) => s + v, 0);
      const major = pauses.filter((p) => p.kind === 'major');
      const figures = {
        windowMs: Math.round(windowMs),
        loopDelay: { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count },
        gc: {
          count: sorted.length,
          totalMs: round(totalMs),
          pctOfWindow: windowMs > 0 ? round((totalMs / windowMs) * 100) : 0,
          p99PauseMs: round(percentile(sorted, 99)),
          maxPauseMs: round(sorted[sorted.length - 1] ?? 0),
          major: { count: major.length, totalMs: round(major.reduce((s, p) => s + p.ms, 0)) },
        },
      };
      h.reset();
      pauses = [];
      return figures;
    },
  };
}
