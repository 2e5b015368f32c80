/**
 * Liveness and readiness for a load balancer (docs/operations.md). `/health` says the process
 * answers HTTP; `/ready` says it can do its work: the database answers, every migration this
 * code knows is applied, and the MQTT link to the broker is up. A check that hangs counts as
 * failed after READY_TIMEOUT_MS, so a stuck database takes the instance out of rotation
 * instead of piling up probes.
 */
import type { Express } from 'express';
import { z } from 'zod';
import type { Db } from '../storage/database.ts';
import { appliedMigrations } from '../storage/applied-migrations.ts';
import { MIGRATIONS } from '../storage/migrations/index.ts';

export const READY_TIMEOUT_MS = 2_000;

export interface ReadinessProbe {
  db: Db;
  /** the MQTT link's state; absent where the app runs without one (tests of the HTTP app alone) */
  brokerConnected?: () => boolean;
}

/** `/ready`'s answer, 200 when `status` is `ready`, else 503 (the OpenAPI document shows it). */
export const ReadinessAnswer = z.object({
  status: z.enum(['ready', 'not ready']),
  database: z.enum(['ok', 'unreachable']),
  /** `newer`: the database has migrations this code does not know (a newer release ran): still ready, see the rollback story */
  migrations: z.enum(['current', 'pending', 'newer', 'unknown']),
  broker: z.enum(['connected', 'disconnected', 'none']),
});

export type Readiness = Omit<z.infer<typeof ReadinessAnswer>, 'status'> & { ready: boolean };

export async function checkReadiness(probe: ReadinessProbe, timeoutMs = READY_TIMEOUT_MS): Promise<Readiness> {
  const broker = probe.brokerConnected ? (probe.brokerConnected() ? 'connected' : 'disconnected') : 'none';
  let database: Readiness['database'] = 'ok';
  let migrations: Readiness['migrations'] = 'unknown';
  try {
    const applied = await withTimeout(appliedMigrations(probe.db), timeoutMs);
    const known = MIGRATIONS.map(([name]) => name);
    if (known.some((n) => !applied.has(n))) migrations = 'pending';
    else migrations = applied.size > known.length ? 'newer' : 'current';
  } catch {
    database = 'unreachable';
  }
  const ready = database === 'ok' && (migrations === 'current' || migrations === 'newer') && broker !== 'disconnected';
  return { ready, database, migrations, broker };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** `/health` (alive) and `/ready` (503 with the failing parts when not ready). */
export function mountProbes(app: Express, probe: ReadinessProbe): void {
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/ready', async (_req, res) => {
    const r = await checkReadiness(probe);
    res.status(r.ready ? 200 : 503).json({
      status: r.ready ? 'ready' : 'not ready',
      database: r.database,
      migrations: r.migrations,
      broker: r.broker,
    });
  });
}
