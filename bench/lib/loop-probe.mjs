/**
 * Preloaded into a benchmarked process (`node --import ./bench/lib/loop-probe.mjs`): the first
 * SIGUSR2 starts measuring its event loop's delay, the next prints one JSON line with the
 * figures and stops (each answers with a line).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

// Off until asked: its timer would add to an idle process's CPU.
const h = monitorEventLoopDelay({ resolution: 10 });
let on = false;
const ms = (ns) => Math.round(ns / 1e4) / 100;
process.on('SIGUSR2', () => {
  if (on) process.stdout.write(JSON.stringify({ loopDelay: { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count } }) + '\n');
  else process.stdout.write(JSON.stringify({ loopDelay: { started: true } }) + '\n');
  on ? h.disable() : h.enable();
  on = !on;
  h.reset();
});
