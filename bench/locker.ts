/**
 * `npm run bench:locker`: latency from a code arriving on the keypad line (the keypad source
 * emitting it) to the unlock frame handed to the bus link, p50/p99, over the in-memory link and
 * over socat pseudo-terminals. Wire time is excluded by timestamping inside the agent's
 * process at both ends. Bounded: a fixed number of placements and pickups per variant.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { CONTRACT_VERSION, type LockerEvent } from '../shared/mqtt/index.ts';
import { KerongCommand } from '../shared/protocols/kerong/index.ts';
import { LockerAgent } from '../locker-agent/agent.ts';
import { openSerialLink, type SerialLink } from '../locker-agent/boards/serial-link.ts';
import { parseConfig } from '../locker-agent/config.ts';
import { AgentStore } from '../locker-agent/store.ts';
import { LineKeypad, openKeypad, type KeypadSource } from '../locker-agent/keypad/keypad.ts';
import { SimBoard } from '../hardware-sim/board.ts';
import { SimBus } from '../hardware-sim/bus.ts';
import { createLinkPair } from '../hardware-sim/memory-link.ts';
import { createPtyPair, type PtyPair } from '../hardware-sim/pty.ts';
import { createProbe } from './lib/probe-core.mjs';
import type { ProcessFigures } from './lib/server-probe.ts';

type Variant = 'memory' | 'pty';
const CELLS = 8;
const WARMUP = 5;
const TARGET_P99_MS = 5;

/** Wraps the agent's bus link: records when an unlock frame is handed to it. */
class TimedLink implements SerialLink {
  onUnlock: (() => void) | undefined;
  constructor(private readonly inner: SerialLink) {}
  write(data: Buffer): Promise<void> {
    if (data[2] === KerongCommand.Unlock) this.onUnlock?.();
    return this.inner.write(data);
  }
  flushInput() {
    return this.inner.flushInput();
  }
  onData(listener: (chunk: Buffer) => void) {
    this.inner.onData(listener);
  }
  close() {
    return this.inner.close();
  }
}

interface Samples {
  total: number[];
  /** Same samples minus the durable intent commit inside them. */
  withoutCommit: number[];
  /**
   * The event-loop delay and GC pauses of this process (the agent, the simulated board and
   * the keypad all run in it) over the measured cycles.
   */
  process?: ProcessFigures;
}

async function runVariant(variant: Variant, iterations: number, dir: string): Promise<Samples> {
  const board = new SimBoard({ address: 0, unlockTimeMs: 1 });
  const ptys: PtyPair[] = [];
  const simLinks: SerialLink[] = [];
  let agentBus: SerialLink;
  let keypad: KeypadSource;
  let typeLine: (line: string) => Promise<void>;
  if (variant === 'memory') {
    const [a, b] = createLinkPair();
    new SimBus(b, new Map([[0, board]])).attach();
    const input = new PassThrough();
    agentBus = a;
    keypad = new LineKeypad(input);
    typeLine = async (line) => void input.write(line);
  } else {
    ptys.push(await createPtyPair(dir, 'bus'), await createPtyPair(dir, 'keypad'));
    const simBus = (await openSerialLink(ptys[0].simPath, 19200)).link;
    const simKeypad = (await openSerialLink(ptys[1].simPath, 9600)).link;
    simLinks.push(simBus, simKeypad);
    new SimBus(simBus, new Map([[0, board]])).attach();
    agentBus = (await openSerialLink(ptys[0].agentPath, 19200)).link;
    keypad = await openKeypad(ptys[1].agentPath, 9600);
    typeLine = (line) => simKeypad.write(Buffer.from(line));
  }
  const link = new TimedLink(agentBus);
  const config = parseConfig({
    lockerId: `bench-${variant}`,
    serial: { device: variant, replyTimeoutMs: 100, readRetries: 1, pollIntervalMs: 20 },
    boards: [0],
    cells: Array.from({ length: CELLS }, (_, i) => ({ cellId: String(i + 1), board: 0, lock: i + 1, size: 'M' })),
    keypad: { device: variant },
    dataDir: join(dir, `data-${variant}`),
    timing: { wrongCodeLimit: 1000 },
  });
  const opened: ((cellId: string) => void)[] = [];
  const events: ((e: LockerEvent) => void)[] = [];
  const display = {
    show: (text: string) => {
      const m = /^Cell (\S+) is open/.exec(text);
      if (m) opened.shift()?.(m[1]);
    },
  };
  const quiet = { info() {}, warn() {}, error: (m: string) => console.error(m) };
  const agent = new LockerAgent(config, { bus: link, keypad, display, log: quiet });
  agent.on('event', (e) => events.forEach((fn) => fn(e)));
  const upserts = Array.from({ length: iterations }, (_, i) => {
    const n = String(i).padStart(3, '0');
    return {
      orderId: `b${i}`,
      codes: { DOWN: `1${n}`, UP: `2${n}`, SUBTRACT: `3${n}` },
      notPaidAmount: 0,
      status: 'CREATED' as const,
    };
  });
  await agent.start();
  agent.applySync({ v: CONTRACT_VERSION, version: 1, full: true, upserts, removals: [] });

  const samples: Samples = { total: [], withoutCommit: [] };
  let codeAt = 0;
  let commitMs = 0;
  keypad.prependListener('code', () => {
    codeAt = performance.now();
    commitMs = 0;
  });
  // Instrument only: time the intent commit (one fsync) that must precede the unlock frame.
  const begin = agent.store.beginIntent.bind(agent.store);
  agent.store.beginIntent = (...args) => {
    const t = performance.now();
    const intent = begin(...args);
    commitMs += performance.now() - t;
    return intent;
  };
  let measuring = false;
  link.onUnlock = () => {
    if (!measuring) return;
    const total = performance.now() - codeAt;
    samples.total.push(total);
    samples.withoutCommit.push(total - commitMs);
  };
  const cycle = async (code: string, parcelAfter: boolean, done: LockerEvent['type']) => {
    const open = new Promise<string>((resolve) => opened.push(resolve));
    await typeLine(`${code}\r\n`);
    const cellId = await open;
    const lock = board.lock(Number(cellId));
    const finished = new Promise<void>((resolve) =>
      events.push(function f(e) {
        if (e.type === done && e.cellId === cellId) {
          events.splice(events.indexOf(f), 1);
          resolve();
        }
      }),
    );
    lock.parcel = parcelAfter;
    lock.closed = true;
    await finished;
  };
  const probe = createProbe();
  for (const [i, o] of upserts.entries()) {
    // The first cycles warm up the JIT and SQLite's page cache; they are not counted.
    measuring = i >= WARMUP;
    if (i === WARMUP) probe.start();
    await cycle(o.codes.DOWN, true, 'PLACED');
    await cycle(o.codes.UP, false, 'PICKED_UP');
  }
  if (probe.on) samples.process = probe.stop();
  await agent.stop();
  for (const l of simLinks) await l.close();
  for (const p of ptys) await p.close();
  board.close();
  return samples;
}

/**
 * The durable intent write alone (WAL, synchronous=FULL: one fsync), which the agent must finish
 * before the unlock frame; shows how much of the latency is the disk.
 */
function intentCommits(dir: string, n: number): number[] {
  const store = AgentStore.open(join(dir, 'commit-only'));
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const intent = store.beginIntent('PLACE', 'c', 'o', new Date().toISOString());
    out.push(performance.now() - t);
    store.resolveIntent(intent.intentId, {});
  }
  store.close();
  return out;
}

interface Row {
  variant: string;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function row(variant: string, samples: number[]): Row {
  const s = [...samples].sort((a, b) => a - b);
  return {
    variant,
    samples: s.length,
    p50Ms: round(percentile(s, 50)),
    p99Ms: round(percentile(s, 99)),
    maxMs: round(s[s.length - 1]),
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { iterations: { type: 'string', default: '100' } } });
  const iterations = Math.max(1, Math.min(999, Number(values.iterations)));
  const dir = mkdtempSync(join(tmpdir(), 'bench-locker-'));
  const rows: Row[] = [];
  const processFigures: Record<string, ProcessFigures | undefined> = {};
  try {
    for (const variant of ['memory', 'pty'] as const) {
      const s = await runVariant(variant, iterations, dir);
      rows.push(row(variant, s.total), row(`${variant}, minus intent fsync`, s.withoutCommit));
      processFigures[variant] = s.process;
    }
    rows.push(row('intent commit alone', intentCommits(dir, iterations * 2)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`keypad code → unlock frame written (agent side, wire time excluded); target p99 < ${TARGET_P99_MS} ms`);
  console.table(rows);
  for (const [variant, f] of Object.entries(processFigures)) {
    if (f)
      console.log(
        `${variant}: this process's event-loop delay p99 ${f.loopDelay.p99Ms} ms (max ${f.loopDelay.maxMs}); GC ${f.gc.count} pauses, ${f.gc.totalMs} ms in all, longest ${f.gc.maxPauseMs} ms`,
      );
  }
  const p99 = (variant: string) => rows.find((r) => r.variant === variant)!.p99Ms;
  const meets = { memoryP99Under5ms: p99('memory') < TARGET_P99_MS, ptyP99Under5ms: p99('pty') < TARGET_P99_MS };
  console.log('meets:', meets);
  const out = {
    benchmark: 'locker',
    measuredAt: new Date().toISOString(),
    node: process.version,
    loadAverage: loadavg(),
    iterations,
    warmupCycles: WARMUP,
    targetP99Ms: TARGET_P99_MS,
    results: rows,
    process: processFigures,
    meets,
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/locker.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
