import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { CONTRACT_VERSION, CellSize, SyncOrder } from '../shared/mqtt/index.ts';
import { systemClock, type Clock } from '../shared/clock.ts';
import type { CellConfig } from '../locker-agent/config.ts';
import type { CloudView } from './cloud-view.ts';
import { startControlApi } from './control-api.ts';
import { SimLocker, type Transport } from './locker.ts';

/** One locker of a fleet file: boards and either an explicit cell map or sizes per board. */
export const FleetLocker = z.object({
  id: z.string().min(1),
  /** Shown and searched on the fleet page. */
  title: z.string().min(1).max(200).optional(),
  boards: z.array(z.number().int().min(0).max(15)).min(1).default([0]),
  /** Sizes of locks 1..n on every board, when no explicit cell map is given. */
  sizes: z.array(CellSize).min(1).max(16).optional(),
  cells: z
    .array(z.object({ cellId: z.string(), board: z.number().int(), lock: z.number().int(), size: CellSize }))
    .optional(),
  orders: z.array(SyncOrder).default([]),
  unlockTimeMs: z.number().int().nonnegative().optional(),
  /** The agent's cloud link (MQTT broker and this locker's credentials); without it, no cloud. */
  cloud: z.object({ mqttUrl: z.string().min(1), username: z.string().min(1), password: z.string().min(1) }).optional(),
});
export type FleetLocker = z.input<typeof FleetLocker>;

export const FleetFile = z.object({ lockers: z.array(FleetLocker).min(1) });

export interface FleetOptions {
  lockers?: FleetLocker[];
  transport?: Transport;
  agentMode?: 'child' | 'inprocess';
  /** Working folder for ptys and agent stores; a temporary one (removed on close) by default. */
  dir?: string;
  /** Control API port; 0 picks a free one; undefined starts no API. */
  port?: number;
  host?: string;
  /** Agent config overrides for every locker (timing, serial timeouts). */
  agentConfig?: Record<string, unknown>;
  /** The cloud's view of the lockers, for the page's orders (`npm start` passes one). */
  cloud?: CloudView;
  /** Times of the live log (the system clock by default). */
  clock?: Clock;
}

export interface FleetHandle {
  lockers: Map<string, SimLocker>;
  /** Base URL of the control API, when started. */
  url?: string;
  close(): Promise<void>;
}

const DEFAULT_SIZES: CellSize[] = ['S', 'S', 'S', 'S', 'M', 'M', 'M', 'M', 'M', 'M', 'L', 'L', 'L', 'L', 'XL', 'XL'];

/** Two lockers with demo orders, so `npm run sim` does something without a fleet file. */
export const DEFAULT_FLEET: FleetLocker[] = [
  {
    id: 'locker-1',
    boards: [0],
    orders: [
      { orderId: 'demo-1', codes: { DOWN: '1001', UP: '1002', SUBTRACT: '1003' }, notPaidAmount: 0, status: 'CREATED' },
      {
        orderId: 'demo-2',
        codes: { DOWN: '2001', UP: '2002', SUBTRACT: '2003' },
        notPaidAmount: 1500,
        status: 'CREATED',
        cellSize: 'M',
      },
      {
        orderId: 'demo-3',
        codes: { DOWN: '3001', UP: '3002', SUBTRACT: '3003' },
        notPaidAmount: 0,
        status: 'CREATED',
        cellSize: 'XL',
      },
    ],
  },
  { id: 'locker-2', boards: [0, 1] },
];

export function cellMapOf(spec: z.infer<typeof FleetLocker>): CellConfig[] {
  if (spec.cells) return spec.cells;
  const sizes = spec.sizes ?? DEFAULT_SIZES;
  let n = 0;
  return spec.boards.flatMap((board) => sizes.map((size, i) => ({ cellId: String(++n), board, lock: i + 1, size })));
}

/**
 * Starts simulated lockers with their agents, and optionally the control API. Called by
 * `npm run sim` and by the whole-platform `npm start` (lockers with a `cloud` link).
 */
export async function startFleet(options: FleetOptions = {}): Promise<FleetHandle> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'locker-fleet-'));
  const specs = z.array(FleetLocker).parse(options.lockers ?? DEFAULT_FLEET);
  const lockers = new Map<string, SimLocker>();
  let api: { url: string; close(): Promise<void> } | undefined;
  const close = async () => {
    await api?.close();
    await Promise.all([...lockers.values()].map((l) => l.close()));
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const spec of specs) {
      if (lockers.has(spec.id)) throw new Error(`locker id ${spec.id} appears twice in the fleet`);
      const locker = new SimLocker({
        id: spec.id,
        boards: spec.boards,
        cells: cellMapOf(spec),
        dir: join(dir, spec.id),
        transport: options.transport ?? 'pty',
        agentMode: options.agentMode,
        unlockTimeMs: spec.unlockTimeMs,
        agentConfig: spec.cloud ? { ...options.agentConfig, cloud: spec.cloud } : options.agentConfig,
      });
      lockers.set(spec.id, locker);
      // A fleet has many lockers: say which one a bad cell map or a failed start belongs to.
      await locker.start().catch((err: Error) => {
        throw Object.assign(new Error(`locker ${spec.id}: ${err.message}`), { cause: err });
      });
      if (spec.orders.length) {
        await locker.agent.applySync({
          v: CONTRACT_VERSION,
          version: 1,
          full: true,
          upserts: spec.orders,
          removals: [],
        });
      }
    }
    if (options.port !== undefined) {
      const titles = new Map(specs.flatMap((s) => (s.title ? [[s.id, s.title] as const] : [])));
      api = await startControlApi(lockers, options.port, options.host, {
        titles,
        cloud: options.cloud,
        clock: options.clock ?? systemClock,
      });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { lockers, url: api?.url, close };
}
