/**
 * What the large-list tests measure: the statements the server runs (a Kysely plugin on the
 * test storage's connection, so nothing in the code under test changes) and how long the event
 * loop went without a turn while an answer was produced and received.
 */
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import fs from 'node:fs';
import type { TestStorage } from '../helpers/storage.ts';

export interface Statement {
  /** every table the statement names */
  tables: string[];
  /** rows it returned */
  rows: number;
}

function tablesOf(node: unknown, into = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return into;
  if (Array.isArray(node)) {
    for (const x of node) tablesOf(x, into);
    return into;
  }
  const n = node as { kind?: string; table?: { identifier?: { name?: string } } };
  if (n.kind === 'TableNode' && n.table?.identifier?.name) into.add(n.table.identifier.name);
  for (const v of Object.values(node)) tablesOf(v, into);
  return into;
}

/**
 * Records every statement run through the Kysely instance it is plugged into. `failWhen` makes
 * a statement fail after it ran (a fault in the middle of an answer).
 */
export class StatementLog implements KyselyPlugin {
  readonly statements: Statement[] = [];
  failWhen?: (s: Statement, index: number) => boolean;
  private readonly pending = new Map<unknown, string[]>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.pending.set(args.queryId, [...tablesOf(args.node)]);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const tables = this.pending.get(args.queryId) ?? [];
    this.pending.delete(args.queryId);
    const s = { tables, rows: args.result.rows.length };
    this.statements.push(s);
    if (this.failWhen?.(s, this.statements.length - 1)) throw new Error('injected storage failure');
    return args.result;
  }

  /** statements from `from` on that name `table` */
  on(table: string, from = 0): Statement[] {
    return this.statements.slice(from).filter((s) => s.tables.includes(table));
  }
}

/** The same storage, its queries going through `log`: hand it to startTestCloud as `reuse`. */
export function loggedStorage(storage: TestStorage, log: StatementLog): TestStorage {
  return { ...storage, db: storage.db.withPlugin(log) };
}

export interface TimedAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  /**
   * The longest time the event loop went without running the heartbeat, in ms: per interval the
   * smaller of wall-clock time and the CPU time of this process's main thread, so that time the
   * machine gave to other processes (the tests share two cores with other suites) does not count
   * as blocking.
   */
  maxBlockMs: number;
  /** the body ended without an error */
  complete: boolean;
}

const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`;
const TICK_MS = 10;

/**
 * CPU time of the main thread (the event loop's) in ms, from Linux's per-thread accounting (in
 * 10 ms ticks); elsewhere the whole process's, which counts GC helper threads too (an upper bound).
 */
function mainThreadCpuMs(): number {
  try {
    const stat = fs.readFileSync(MAIN_THREAD_STAT, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

/**
 * GETs a URL, reading the body chunk by chunk while a 5 ms heartbeat runs; the heartbeat stops
 * when the last byte arrives, before the body is parsed (parsing 20 MB of JSON in this process
 * would block the loop too, and it is not the server's doing).
 */
export async function timedGet(url: string, headers: Record<string, string>): Promise<TimedAnswer> {
  let wall = performance.now();
  let cpu = mainThreadCpuMs();
  let maxBlockMs = 0;
  const beat = () => {
    const [nowWall, nowCpu] = [performance.now(), mainThreadCpuMs()];
    // One tick of slack: the accounting charges whole ticks.
    maxBlockMs = Math.max(maxBlockMs, Math.min(nowWall - wall, nowCpu - cpu + TICK_MS));
    [wall, cpu] = [nowWall, nowCpu];
  };
  const timer = setInterval(beat, 5);
  const chunks: Buffer[] = [];
  let complete = true;
  let res: Response;
  try {
    res = await fetch(url, { headers });
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    } catch {
      complete = false;
    }
  } finally {
    clearInterval(timer);
    beat();
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body, maxBlockMs, complete };
}
