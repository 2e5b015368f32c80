/**
 * Preloaded into a benchmarked process (`node --import ./bench/lib/loop-probe.mjs`): the first
 * SIGUSR2 starts measuring its event loop's delay, the next prints one JSON line with the
 * figures and stops (each answers with a line).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

// Off until asked: its timer would add to an idle process's CPU.
const RESOLUTION_MS = 10;
const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
let on = false;
// Node's histogram records the time between two firings of its timer, the sampling interval
// included (an idle process reads ~10 ms at a 10 ms resolution): the delay is what is beyond it.
const ms = (ns) => Math.max(0, Math.round(ns / 1e4) / 100 - RESOLUTION_MS);
process.on('SIGUSR2', () => {
  if (on) process.stdout.write(JSON.stringify({ loopDelay: { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count } }) + '\n');
  else process.stdout.write(JSON.stringify({ loopDelay: { started: true } }) + '\n');
  on ? h.disable() : h.enable();
  on = !on;
  h.reset();
});
