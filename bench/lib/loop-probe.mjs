/**
 * Preloaded into a benchmarked process (`node --import ./bench/lib/loop-probe.mjs`): measures its
 * event loop's delay, and on SIGUSR2 prints one JSON line with the figures since the last one.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
const ms = (ns) => Math.round(ns / 1e4) / 100;
process.on('SIGUSR2', () => {
  process.stdout.write(JSON.stringify({ loopDelay: { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count } }) + '\n');
  h.reset();
});
