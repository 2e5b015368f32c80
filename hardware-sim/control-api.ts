import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { CommandMessage, CONTRACT_VERSION, SyncMessage, SyncOrder } from '../shared/mqtt/index.ts';
import type { Clock } from '../shared/clock.ts';
import { listenOn } from '../shared/listen.ts';
import { ActivityStreams } from './activity-stream.ts';
import type { CloudView } from './cloud-view.ts';
import { LockerActivity } from './locker-activity.ts';
import { SimError, type SimLocker } from './locker.ts';
import { isPagePath, sendPage } from './web-page.ts';

/**
 * A code's answer takes a board round trip, or the unlock confirmation time (2 s) when the cell
 * does not open; 5 s leaves room for a slow machine.
 */
const KEYPAD_ANSWER_MS = 5_000;

/** A JSON body larger than this is refused (413): a fleet's full order snapshot fits many times over. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Orders of a locker the page lists, as the cloud sees them. */
const CLOUD_ORDERS = 20;

/** What the page adds to the control API: titles, the cloud when known, the clock of the live log. */
export interface ControlApiOptions {
  /** Titles by locker id (the fleet file's `title`), shown and searched on the page. */
  titles?: Map<string, string>;
  /** The cloud's view of the lockers, when the simulator knows the cloud (`npm start`). */
  cloud?: CloudView;
  clock: Clock;
}

/** One locker as the routes see it: the simulated locker, its live log, what the API was told. */
interface Ctx {
  locker: SimLocker;
  activity: LockerActivity;
  title: string | null;
  cloud: CloudView | undefined;
  query: URLSearchParams;
}

type Handler = (l: SimLocker, params: Record<string, string>, body: unknown, ctx: Ctx) => Promise<unknown> | unknown;

const Code = z.object({
  code: z.string().regex(/^\d{1,16}$/, 'code must be 1 to 16 digits'),
  /** how long to wait for the locker's answer on its display; 0 answers at once */
  waitMs: z.number().int().min(0).max(30_000).default(KEYPAD_ANSWER_MS),
});
const Present = z.object({ present: z.boolean() });
const Flag = (key: string) => z.object({ [key]: z.boolean() });
const HookStuck = z.object({ stuck: z.boolean().nullable() });
const Delay = z.object({ ms: z.number().int().min(0).max(10_000) });
const Restart = z.object({ kill: z.boolean().default(false) });
const Network = z.object({ online: z.boolean() });
const TestOrder = z.object({ pay: z.boolean().default(true) });
/**
 * A full sync message, or just the orders (applied as the next full snapshot). The shape is
 * picked first, so an error names the field rather than "invalid input" for all three.
 */
function parseOrders(body: unknown): z.infer<typeof SyncMessage> | z.infer<typeof SyncOrder>[] {
  if (Array.isArray(body)) return z.array(SyncOrder).parse(body);
  if (body && typeof body === 'object' && 'orders' in body && !('version' in body))
    return z.object({ orders: z.array(SyncOrder) }).parse(body).orders;
  return SyncMessage.parse(body);
}

/** A board address from the path: a number, or no such board. */
function boardAt(l: SimLocker, address: string) {
  if (!/^\d+$/.test(address)) throw new SimError(404, `no board ${address} in locker ${l.id}`);
  return l.board(Number(address));
}

async function describeLocker(l: SimLocker, ctx: Ctx) {
  ctx.activity.refresh();
  const linked = ctx.activity.cloudLinked;
  const [syncVersion, agentCells, inCloud] = await Promise.all([
    l.agent.syncVersion().catch(() => null),
    l.agent.cells().then(
      (m) => m.cells,
      () => [],
    ),
    linked && ctx.cloud ? ctx.cloud.locker(l.id) : undefined,
  ]);
  const hardware = l.hardwareCells();
  const network = linked ? (ctx.activity.networkCut ? 'cut' : 'on') : null;
  const cloudOnline = inCloud?.online ?? null;
  return {
    id: l.id,
    title: ctx.title,
    transport: l.options.transport,
    agentPid: l.agent.pid ?? null,
    syncVersion,
    // As the cloud sees it when the simulator knows the cloud; else what the network switch says.
    state: network === null ? 'standalone' : (cloudOnline ?? network === 'on') ? 'online' : 'offline',
    network,
    cloudOnline,
    boards: [...l.boards.values()].map((b) => ({ address: b.address, silent: b.silent, replyDelayMs: b.replyDelayMs })),
    cells: {
      total: hardware.length,
      parcels: hardware.filter((c) => c.parcel).length,
      open: hardware.filter((c) => !c.doorClosed).length,
      jammed: hardware.filter((c) => c.jammed).length,
      unknown: agentCells.filter((c) => c.state === 'UNKNOWN').length,
      broken: agentCells.filter((c) => c.state === 'BROKEN').length,
    },
    display: l.lastDisplay() ?? null,
  };
}

function cloudOf(ctx: Ctx): CloudView {
  if (!ctx.cloud)
    throw new SimError(
      409,
      "the simulator was started without a cloud: `npm start` runs both and shows the cloud's orders",
    );
  if (!ctx.activity.cloudLinked) throw new SimError(409, `locker ${ctx.locker.id} has no cloud link`);
  return ctx.cloud;
}

async function lockerInCloud(ctx: Ctx) {
  const cloud = cloudOf(ctx);
  const [locker, orders] = await Promise.all([cloud.locker(ctx.locker.id), cloud.orders(ctx.locker.id, CLOUD_ORDERS)]);
  if (!locker) throw new SimError(404, `the cloud has no locker ${ctx.locker.id}`);
  return { online: locker.online, orders };
}

/** The last entry a client has: `?after=` or, from a reconnecting EventSource, `Last-Event-ID`. */
function afterOf(params: URLSearchParams, lastEventId?: string | string[]): number {
  const after = Number(typeof lastEventId === 'string' ? lastEventId : (params.get('after') ?? 0));
  return Number.isSafeInteger(after) && after > 0 ? after : 0;
}

/** Routes: method + path pattern (`:name` segments) → handler on one locker. */
const routes: [string, string, Handler][] = [
  ['GET', '/lockers/:id', (l, _p, _b, ctx) => describeLocker(l, ctx)],
  ['GET', '/lockers/:id/cells', async (l) => ({ hardware: l.hardwareCells(), agent: (await l.agent.cells()).cells })],
  ['GET', '/lockers/:id/display', (l) => ({ last: l.lastDisplay() ?? null, lines: l.displayLines.slice(-50) })],
  ['GET', '/lockers/:id/events', async (l) => ({ seen: l.events.slice(-100), outbox: await l.agent.pendingEvents() })],
  ['GET', '/lockers/:id/log', (l) => ({ lines: l.agent.output.slice(-200) })],
  [
    'POST',
    '/lockers/:id/orders',
    async (l, _p, body) => {
      const parsed = parseOrders(body);
      if (!Array.isArray(parsed)) return l.agent.applySync(parsed);
      // Plain orders are the next full snapshot: newer than any sync message posted before.
      const version = Math.max(l.nextSyncVersion(), (await l.agent.syncVersion()) + 1);
      return l.agent.applySync({ v: CONTRACT_VERSION, version, full: true, upserts: parsed, removals: [] });
    },
  ],
  [
    'POST',
    '/lockers/:id/keypad',
    async (l, _p, body, ctx) => {
      const { code, waitMs } = Code.parse(body);
      ctx.activity.keypad(code);
      if (waitMs === 0) return (await l.typeCode(code), { typed: true });
      return { typed: true, display: (await l.typeCodeForAnswer(code, waitMs)) ?? null };
    },
  ],
  [
    'POST',
    '/lockers/:id/cells/:cellId/parcel',
    (l, p, body) => (l.setParcel(p.cellId, Present.parse(body).present), cellOf(l, p.cellId)),
  ],
  ['POST', '/lockers/:id/cells/:cellId/close', (l, p) => (l.closeDoor(p.cellId), cellOf(l, p.cellId))],
  ['POST', '/lockers/:id/cells/:cellId/force', (l, p) => (l.forceDoor(p.cellId), cellOf(l, p.cellId))],
  [
    'POST',
    '/lockers/:id/cells/:cellId/hook',
    (l, p, body) => (l.setHookStuck(p.cellId, HookStuck.parse(body).stuck), cellOf(l, p.cellId)),
  ],
  [
    'POST',
    '/lockers/:id/cells/:cellId/jam',
    (l, p, body) => (l.setJammed(p.cellId, Flag('jammed').parse(body).jammed as boolean), cellOf(l, p.cellId)),
  ],
  [
    'POST',
    '/lockers/:id/boards/:address/silence',
    (l, p, body, ctx) => (
      (boardAt(l, p.address).silent = Flag('silent').parse(body).silent as boolean), describeLocker(l, ctx)
    ),
  ],
  [
    'POST',
    '/lockers/:id/boards/:address/delay',
    (l, p, body, ctx) => ((boardAt(l, p.address).replyDelayMs = Delay.parse(body).ms), describeLocker(l, ctx)),
  ],
  [
    'POST',
    '/lockers/:id/agent/restart',
    async (l, _p, body, ctx) => (await l.restartAgent(Restart.parse(body ?? {})), describeLocker(l, ctx)),
  ],
  ['POST', '/lockers/:id/commands', (l, _p, body) => l.agent.command(CommandMessage.parse(body))],
  [
    'POST',
    '/lockers/:id/network',
    async (l, _p, body, ctx) => {
      const { online } = Network.parse(body);
      if (!(await l.agent.setNetwork(online))) throw new SimError(409, `locker ${l.id} has no cloud link`);
      ctx.activity.network(online);
      return { online };
    },
  ],
  ['GET', '/lockers/:id/activity', (_l, _p, _b, ctx) => ({ entries: ctx.activity.since(afterOf(ctx.query)) })],
  ['GET', '/lockers/:id/cloud', (_l, _p, _b, ctx) => lockerInCloud(ctx)],
  [
    'POST',
    '/lockers/:id/cloud/orders',
    async (_l, _p, body, ctx) => {
      const { pay } = TestOrder.parse(body ?? {});
      return cloudOf(ctx).createTestOrder(ctx.locker.id, { pay });
    },
  ],
];

function cellOf(l: SimLocker, cellId: string) {
  return l.hardwareCells().find((c) => c.cellId === cellId);
}

function match(pattern: string, path: string): Record<string, string> | undefined {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) params[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return undefined;
  }
  return params;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new SimError(413, `body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new SimError(400, 'body is not valid JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * A browser page of another site may send simple POSTs here (no preflight): refuse a request
 * whose Origin is not this server. curl and the simulator's own page pass.
 */
function checkOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin;
  if (req.method === 'GET' || origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== req.headers.host)
    throw new SimError(403, `requests from ${origin} are refused: use the page served here`);
}

/**
 * The simulator's HTTP control API (node:http: a handful of routes, no framework needed), its
 * live log stream, and the fleet page on `/`.
 */
export async function startControlApi(
  lockers: Map<string, SimLocker>,
  port: number,
  host = '127.0.0.1',
  options: ControlApiOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const activities = new Map([...lockers].map(([id, l]) => [id, new LockerActivity(l, { clock: options.clock })]));
  for (const a of activities.values()) a.start();
  const ctxOf = (locker: SimLocker, query: URLSearchParams): Ctx => ({
    locker,
    activity: activities.get(locker.id)!,
    title: options.titles?.get(locker.id) ?? null,
    cloud: options.cloud,
    query,
  });
  const streams = new ActivityStreams();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/$/, '') || '/';
    try {
      checkOrigin(req);
      if (req.method === 'GET' && isPagePath(path)) return await sendPage(res, path);
      if (req.method === 'GET' && path === '/lockers')
        return send(
          res,
          200,
          await Promise.all([...lockers.values()].map((l) => describeLocker(l, ctxOf(l, url.searchParams)))),
        );
      const streamOf = req.method === 'GET' ? match('/lockers/:id/stream', path) : undefined;
      if (streamOf)
        return streams.serve(
          lockerCtx(streamOf.id).activity,
          afterOf(url.searchParams, req.headers['last-event-id']),
          res,
        );
      for (const [method, pattern, handler] of routes) {
        const params = req.method === method ? match(pattern, path) : undefined;
        if (!params) continue;
        const ctx = lockerCtx(params.id);
        return send(res, 200, await handler(ctx.locker, params, await readJson(req), ctx));
      }
      throw new SimError(404, `no route ${req.method} ${path}`);
    } catch (err) {
      if (res.headersSent) return void res.end();
      if (err instanceof SimError) return send(res, err.status, { error: err.message });
      if (err instanceof z.ZodError) return send(res, 400, { error: z.prettifyError(err) });
      send(res, 500, { error: (err as Error).message });
    }

    function lockerCtx(id: string): Ctx {
      const locker = lockers.get(id);
      if (!locker) throw new SimError(404, `no locker ${id}`);
      return ctxOf(locker, url.searchParams);
    }
  });
  await listenOn(server, port, host, `port ${port} on ${host} is taken: choose another with --port or SIM_PORT`);
  const { port: actual } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const a of activities.values()) a.stop();
        // Open event streams would keep the server from ever closing.
        streams.end();
        server.close(() => resolve());
      }),
  };
}
