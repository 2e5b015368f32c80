/**
 * The benchmark's side of bench/lib/loop-probe.mjs: starts and stops the probe preloaded in a
 * child process, and reads its answer. A latency figure taken between `start()` and `stop()`
 * then carries the server's event-loop delay and GC pauses over the same window.
 */
import type { ChildProcess } from 'node:child_process';
import { createProbe } from './probe-core.mjs';

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  samples: number;
}

export interface GcPauses {
  count: number;
  totalMs: number;
  /** GC time as a share of the window */
  pctOfWindow: number;
  p99PauseMs: number;
  maxPauseMs: number;
  major: { count: number; totalMs: number };
}

/** One process over one window. */
export interface ProcessFigures {
  windowMs: number;
  loopDelay: LoopDelay;
  gc: GcPauses;
}

export interface Probe {
  start(): Promise<void>;
  stop(): Promise<ProcessFigures>;
}

const ANSWER_TIMEOUT_MS = 10_000;

/**
 * The probe of a child started with `--import ./bench/lib/loop-probe.mjs`. Signals are sent one
 * at a time, each after the answer to the one before: two SIGUSR2 sent together may arrive as one.
 */
export function childProbe(proc: ChildProcess): Probe {
  const waiting: Array<(msg: any) => void> = [];
  let buf = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      // The cloud logs a line per request: only the probe's answers are parsed.
      if (line.startsWith('{"loopDelay"')) waiting.shift()?.(JSON.parse(line));
    }
  });
  const ask = () =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `the probe of process ${proc.pid} did not answer (was it started with bench/lib/loop-probe.mjs?)`,
            ),
          ),
        ANSWER_TIMEOUT_MS,
      );
      waiting.push((msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      proc.kill('SIGUSR2');
    });
  return {
    async start() {
      const msg = await ask();
      if (!msg.loopDelay?.started) throw new Error(`the probe of process ${proc.pid} was already on`);
    },
    async stop() {
      const msg = await ask();
      if (msg.loopDelay?.started) throw new Error(`the probe of process ${proc.pid} was off`);
      return msg as ProcessFigures;
    },
  };
}

/** The same figures for this process (the load generator, in-process agents). */
export function selfProbe(): Probe {
  const probe = createProbe();
  return {
    async start() {
      probe.start();
    },
    async stop() {
      return probe.stop();
    },
  };
}

/** Probes of the children started so far, by their URL (bench/lib/processes.ts registers them). */
const byUrl = new Map<string, Probe>();
export const registerProbe = (url: string, probe: Probe) => void byUrl.set(url, probe);
export const probeAt = (url: string): Probe | undefined => byUrl.get(url);

/** `fn` run with `probe` on over it: its result, and the probe's figures over the same window. */
export async function whileProbed<T>(
  probe: Probe | undefined,
  fn: () => Promise<T>,
): Promise<{ result: T; figures?: ProcessFigures }> {
  await probe?.start();
  try {
    const result = await fn();
    return { result, figures: await probe?.stop() };
  } catch (err) {
    await probe?.stop().catch(() => undefined);
    throw err;
  }
}

/** A short form for tables: "loop p99 / GC max" in ms. */
export const shortFigures = (f?: ProcessFigures) => (f ? `${f.loopDelay.p99Ms} / ${f.gc.maxPauseMs}` : '-');
