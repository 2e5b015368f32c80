/**
 * Bench-only diagnosis (bench:peak with BENCH_PEAK_STATEMENTS=1): preloaded into the cloud
 * (`--import`), it times every better-sqlite3 statement the process runs, on either of its
 * connections, and when the process exits writes to stderr the statements that took the most
 * time in all: total ms, runs, µs per run and the SQL's first 160 characters. A CPU profile
 * shows SQLite's time only as "executeQuery"; this says which statement it was.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const SQLite = createRequire(path.join(process.cwd(), 'package.json'))('better-sqlite3');
const probe = new SQLite(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('select 1'));
probe.close();

const times = new Map();
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = Statement[method];
  Statement[method] = function (...args) {
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const key = this.source.replace(/\s+/g, ' ').slice(0, 160);
      const t = times.get(key) ?? { ms: 0, runs: 0 };
      t.ms += performance.now() - started;
      t.runs++;
      times.set(key, t);
    }
  };
}

process.on('exit', () => {
  const rows = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 40);
  const total = [...times.values()].reduce((a, t) => a + t.ms, 0);
  const lines = rows.map(
    ([sql, t]) =>
      `${t.ms.toFixed(0).padStart(8)} ms ${String(t.runs).padStart(8)} runs ${((t.ms / t.runs) * 1000).toFixed(0).padStart(6)} µs  ${sql}`,
  );
  process.stderr.write(`[statement-probe] ${total.toFixed(0)} ms in statements, the top 40:\n${lines.join('\n')}\n`);
});
