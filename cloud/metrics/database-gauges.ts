/**
 * Gauges only the database can answer, read when scraped: the outbox backlog and the age of its
 * oldest waiting row, staff commands not yet answered, lockers online, and the connection pool.
 * Every instance reports the same database-wide figures (alert on max(), not sum()). One read
 * serves all of them within a scrape, and a database that does not answer within
 * GAUGE_TIMEOUT_MS leaves them unset rather than holding the scrape.
 */
import type { Clock } from '../../shared/clock.ts';
import type { Db, Storage } from '../storage/database.ts';
import { onlineLockerCount, openCommandsByState, waitingOutboxByKind } from '../storage/row-counts.ts';
import type { CloudMetrics } from './cloud-metrics.ts';
import { sharedRead } from './shared-read.ts';

export const GAUGE_TIMEOUT_MS = 2_000;
/** Reads closer together than this share one answer (all gauges of one scrape, and scrapes by several Prometheus servers). */
const FRESH_MS = 1_000;

interface Snapshot {
  outbox: Array<{ kind: string; n: number; oldest: string | null }>;
  commands: Array<{ state: string; n: number }>;
  lockersOnline: number;
}

async function read(db: Db): Promise<Snapshot> {
  const outbox = await waitingOutboxByKind(db);
  const commands = await openCommandsByState(db);
  const lockersOnline = await onlineLockerCount(db);
  return {
    outbox: outbox.map((r) => ({ kind: r.kind, n: Number(r.n), oldest: r.oldest })),
    commands: commands.map((r) => ({ state: r.state, n: Number(r.n) })),
    lockersOnline,
  };
}

export function registerDatabaseGauges(metrics: CloudMetrics, storage: Storage, clock: Clock): void {
  const snapshot = sharedRead(() => read(storage.db), FRESH_MS, GAUGE_TIMEOUT_MS);
  metrics.gauge(
    'outbox_backlog',
    'Outbound events waiting to be sent or being sent (PENDING, SENDING), by kind',
    ['kind'],
    async (g) => {
      const s = await snapshot();
      g.reset();
      for (const r of s?.outbox ?? []) g.set({ kind: r.kind }, r.n);
    },
  );
  metrics.gauge(
    'outbox_oldest_pending_age_seconds',
    'Age of the oldest outbound event not yet sent (0 when none waits)',
    [],
    async (g) => {
      const s = await snapshot();
      if (!s) return;
      const oldest = s.outbox
        .map((r) => r.oldest)
        .filter((t): t is string => !!t)
        .sort()[0];
      g.set(oldest ? Math.max(0, (clock.now().getTime() - Date.parse(oldest)) / 1000) : 0);
    },
  );
  metrics.gauge(
    'commands_pending',
    'Staff commands for lockers not yet answered: PENDING (not sent yet), SENT (waiting for the agent)',
    ['state'],
    async (g) => {
      const s = await snapshot();
      if (!s) return;
      g.set({ state: 'PENDING' }, s.commands.find((c) => c.state === 'PENDING')?.n ?? 0);
      g.set({ state: 'SENT' }, s.commands.find((c) => c.state === 'SENT')?.n ?? 0);
    },
  );
  metrics.gauge(
    'lockers_connected',
    'Lockers whose agent last said it is online (its connection message or Last Will)',
    [],
    async (g) => {
      const s = await snapshot();
      if (s) g.set(s.lockersOnline);
    },
  );
  metrics.gauge(
    'db_pool_connections',
    'PostgreSQL pool connections of this instance: total, idle, and requests waiting for one',
    ['state'],
    (g) => {
      const p = storage.pool();
      if (!p) return;
      g.set({ state: 'total' }, p.total);
      g.set({ state: 'idle' }, p.idle);
      g.set({ state: 'waiting' }, p.waiting);
    },
  );
}
