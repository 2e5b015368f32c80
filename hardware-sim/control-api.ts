import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { CommandMessage, CONTRACT_VERSION, SyncMessage, SyncOrder } from '../shared/mqtt/index.ts';
import { listenOn } from '../shared/listen.ts';
import { SimError, type SimLocker } from './locker.ts';

/**
 * A code's answer takes a board round trip, or the unlock confirmation time (2 s) when the cell
 * does not open; 5 s leaves room for a slow machine.
 */
const KEYPAD_ANSWER_MS = 5_000;

type Handler = (locker: SimLocker, params: Record<string, string>, body: unknown) => Promise<unknown> | unknown;

const Code = z.object({
    code: z.string().regex(/^\d{1,16}$/, 'code must be 1 to 16 digits'),
    /** how long to wait for the locker's answer on its display; 0 answers at once */
    waitMs: z.number().int().min(0).max(30_000).default(KEYPAD_ANSWER_MS),
});
const Present = z.object({ present: z.boolean() });
const Flag = (key: string) => z.object({ [key]: z.boolean() });
const Delay = z.object({ ms: z.number().int().min(0).max(10_000) });
const Restart = z.object({ kill: z.boolean().default(false) });
const Network = z.object({ online: z.boolean() });
/**
 * A full sync message, or just the orders (applied as the next full snapshot). The shape is
 * picked first, so an error names the field rather than "invalid input" for all three.
 */
function parseOrders(body: unknown): z.infer<typeof SyncMessage> | z.infer<typeof SyncOrder>[] {
    if (Array.isArray(body)) return z.array(SyncOrder).parse(body);
    if (body && typeof body === 'object' && 'orders' in body && !('version' in body)) return z.object({ orders: z.array(SyncOrder) }).parse(body).orders;
    return SyncMessage.parse(body);
}

/** A board address from the path: a number, or no such board. */
function boardAt(l: SimLocker, address: string) {
    if (!/^\d+$/.test(address)) throw new SimError(404, `no board ${address} in locker ${l.id}`);
    return l.board(Number(address));
}

async function describeLocker(l: SimLocker) {
    return {
        id: l.id,
        transport: l.options.transport,
        agentPid: l.agent.pid ?? null,
        syncVersion: await l.agent.syncVersion().catch(() => null),
        boards: [...l.boards.values()].map((b) => ({ address: b.address, silent: b.silent, replyDelayMs: b.replyDelayMs })),
        display: l.lastDisplay() ?? null,
    };
}

/** Routes: method + path pattern (`:name` segments) → handler on one locker. */
const routes: [string, string, Handler][] = [
    ['GET', '/lockers/:id', (l) => describeLocker(l)],
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
        async (l, _p, body) => {
            const { code, waitMs } = Code.parse(body);
            if (waitMs === 0) return (await l.typeCode(code), { typed: true });
            return { typed: true, display: (await l.typeCodeForAnswer(code, waitMs)) ?? null };
        },
    ],
    ['POST', '/lockers/:id/cells/:cellId/parcel', (l, p, body) => (l.setParcel(p.cellId, Present.parse(body).present), cellOf(l, p.cellId))],
    ['POST', '/lockers/:id/cells/:cellId/close', (l, p) => (l.closeDoor(p.cellId), cellOf(l, p.cellId))],
    ['POST', '/lockers/:id/cells/:cellId/jam', (l, p, body) => (l.setJammed(p.cellId, Flag('jammed').parse(body).jammed as boolean), cellOf(l, p.cellId))],
    ['POST', '/lockers/:id/boards/:address/silence', (l, p, body) => ((boardAt(l, p.address).silent = Flag('silent').parse(body).silent as boolean), describeLocker(l))],
    ['POST', '/lockers/:id/boards/:address/delay', (l, p, body) => ((boardAt(l, p.address).replyDelayMs = Delay.parse(body).ms), describeLocker(l))],
    ['POST', '/lockers/:id/agent/restart', async (l, _p, body) => (await l.restartAgent(Restart.parse(body ?? {})), describeLocker(l))],
    ['POST', '/lockers/:id/commands', (l, _p, body) => l.agent.command(CommandMessage.parse(body))],
    [
        'POST',
        '/lockers/:id/network',
        async (l, _p, body) => {
            const { online } = Network.parse(body);
            if (!(await l.agent.setNetwork(online))) throw new SimError(409, `locker ${l.id} has no cloud link`);
            return { online };
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
    for await (const c of req) chunks.push(c as Buffer);
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

/** The simulator's HTTP control API (node:http: a handful of routes, no framework needed). */
export async function startControlApi(lockers: Map<string, SimLocker>, port: number, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer(async (req, res) => {
        const path = (req.url ?? '/').split('?')[0].replace(/\/$/, '') || '/';
        try {
            if (req.method === 'GET' && path === '/lockers') return send(res, 200, await Promise.all([...lockers.values()].map(describeLocker)));
            for (const [method, pattern, handler] of routes) {
                const params = req.method === method ? match(pattern, path) : undefined;
                if (!params) continue;
                const locker = lockers.get(params.id);
                if (!locker) throw new SimError(404, `no locker ${params.id}`);
                return send(res, 200, await handler(locker, params, await readJson(req)));
            }
            throw new SimError(404, `no route ${req.method} ${path}`);
        } catch (err) {
            if (err instanceof SimError) return send(res, err.status, { error: err.message });
            if (err instanceof z.ZodError) return send(res, 400, { error: z.prettifyError(err) });
            send(res, 500, { error: (err as Error).message });
        }
    });
    await listenOn(server, port, host, `port ${port} on ${host} is taken: choose another with --port or SIM_PORT`);
    const { port: actual } = server.address() as AddressInfo;
    return {
        url: `http://${host}:${actual}`,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}
