/**
 * Preloaded into a benchmarked process (`node --import ./bench/lib/loop-probe.mjs`; every child
 * bench/lib/processes.ts starts has it): the first SIGUSR2 starts measuring its event loop's
 * delay and its GC pauses (probe-core.mjs), the next prints one JSON line with the figures of
 * that window and stops. Each signal answers with one line on stdout, starting `{"loopDelay"`:
 * `{ loopDelay: { started: true } }`, then `{ loopDelay, gc, windowMs }`.
 * Off until asked: its timer would add to an idle process's CPU.
 */
import { createProbe } from './probe-core.mjs';

const probe = createProbe();
process.on('SIGUSR2', () => {
  if (!probe.on) {
    probe.start();
    process.stdout.write(`${JSON.stringify({ loopDelay: { started: true } })}\n`);
    return;
  }
  const { loopDelay, gc, windowMs } = probe.stop();
  process.stdout.write(`${JSON.stringify({ loopDelay, gc, windowMs })}\n`);
});
