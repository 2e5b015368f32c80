/**
 * Work the cloud does by itself now and then (finishing bulk rewrites, pruning): once at start,
 * then every `everyMs`, one run at a time, its failures logged and retried at the next turn.
 */
import type { Logger } from './logger.ts';

export interface BackgroundTask {
  /** resolves when the run in progress (if any) has finished */
  stop(): Promise<void>;
  /** a run now (tests, or a wake-up), unless one is in progress */
  runNow(): Promise<void>;
}

export function every(name: string, everyMs: number, task: () => Promise<void>, logger: Logger): BackgroundTask {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    running ??= task()
      .catch((err) => logger.error(`${name} failed: will try again`, { err }))
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void (stopped || run()), everyMs);
  timer.unref();
  setImmediate(() => void (stopped || run()));
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    runNow: () => (stopped ? Promise.resolve() : run()),
  };
}

/** `every`, or with `everyMs` 0 a task that runs only when asked (runNow). */
export function onDemandOr(name: string, everyMs: number, task: () => Promise<void>, logger: Logger): BackgroundTask {
  if (everyMs > 0) return every(name, everyMs, task, logger);
  let running: Promise<void> | undefined;
  return {
    stop: async () => void (await running),
    runNow: () =>
      (running ??= task()
        .catch((err) => logger.error(`${name} failed`, { err }))
        .finally(() => (running = undefined))),
  };
}
