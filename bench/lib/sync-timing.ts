/** Timing helpers of bench:sync: percentiles, open-loop arrivals, waiting for a condition. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const round = (v: number) => Math.round(v * 100) / 100;
export const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
}

export const stats = (v: number[]) => ({
  samples: v.length,
  p50Ms: percentile(v, 50),
  p95Ms: percentile(v, 95),
  p99Ms: percentile(v, 99),
  // Not Math.max(...v): a peak run's 180,000 samples overflow the call stack as arguments.
  maxMs: round(v.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY)),
});

/** Calls `fn(i)` `rate` times a second (open loop: a slow answer does not slow the arrivals). */
export async function atRate(n: number, rate: number, fn: (i: number) => Promise<void>): Promise<void> {
  const start = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(fn(i));
  }
  await Promise.all(running);
}

export async function untilAll(what: string, done: () => boolean, guardMs = 60_000): Promise<void> {
  const deadline = Date.now() + guardMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}
