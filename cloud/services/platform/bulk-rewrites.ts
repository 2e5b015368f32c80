/**
 * Rewrites of many rows that one change calls for, a batch per short transaction:
 * - a company renamed: its cargo's search text holds its title;
 * - a company's code names changed: its clients' parcels and cargo are found by them;
 * - a warehouse became (or stopped being) a pickup point: the items inside it are re-filed.
 *
 * Done in one transaction row by row, such a change held SQLite's write lock (and PostgreSQL's
 * row locks) for as long as the rewrite took, and every order the cloud created meanwhile
 * waited. Here the change commits with a job row (queueBulkJob); the job then rewrites a batch
 * per transaction, set-based, computing each row from what the database says now (so running a
 * batch twice, or two jobs for one target, gives the same result), and moves its cursor in the
 * same transaction as the batch. A process that dies half-way leaves the rest of the job to
 * whoever runs the jobs next: the cloud looks for them at start and every minute. Meanwhile a
 * search may find some of the items by the new text and some by the old one, for seconds.
 */
import type { Db } from '../../storage/database.ts';
import {
  anyItemWith,
  codeNamesByCompany,
  companyTitles,
  deleteBulkJob,
  firstBulkJob,
  insertBulkJob,
  isPickupPoint as pickupPoint,
  itemsAfter,
  moveBulkJobCursor,
  writeRows,
  type BulkJob,
  type ColumnType,
  type ItemRow as Row,
} from '../../storage/bulk-job-queries.ts';
import { codeNamesFor } from '../../domain/platform/client-codes.ts';
import { cargoSearchText, parcelSearchText } from '../../domain/platform/search-text.ts';
import { cargoAtFinalPoint, parcelAtFinalPoint } from '../../domain/platform/placement.ts';
import type { CargoStatus, ParcelStatus } from '../../domain/platform/enums.ts';
import { inTransaction } from './tx.ts';

export const BULK_KINDS = ['CARGO_OF_COMPANY', 'ITEMS_OF_CLIENT_COMPANY', 'ITEMS_AT_WAREHOUSE'] as const;
export type BulkKind = (typeof BULK_KINDS)[number];

/** Rows per batch: a batch's transaction stays in the tens of milliseconds. */
export const BULK_BATCH = 500;

interface Phase {
  table: 'parcel' | 'cargo';
  /** the column that selects the job's rows */
  by: 'companyId' | 'clientCompanyId' | 'currentWarehouseId';
  reads: readonly string[];
  writes: Readonly<Record<string, ColumnType>>;
  /** the new values of a batch's rows, from what the database says now */
  values(db: Db, targetId: number, rows: Row[]): Promise<Array<Record<string, string | number>>>;
}

const distinct = (xs: Array<number | null>) => [...new Set(xs.filter((x): x is number => x !== null))];

const cargoSearch: Phase['values'] = async (db, _target, rows) => {
  const [codes, titles] = await Promise.all([
    codeNamesByCompany(db, distinct(rows.map((r) => r.clientCompanyId))),
    companyTitles(db, distinct(rows.map((r) => r.companyId))),
  ]);
  return rows.map((r) => ({
    searchText: cargoSearchText(
      r as any,
      codeNamesFor(r.clientCompanyId === null ? [] : (codes.get(r.clientCompanyId) ?? []), r.cargoTypeId),
      titles.get(r.companyId) ?? '',
    ),
  }));
};

const CARGO_SEARCH = {
  reads: ['description', 'tractorNumber', 'cargoTypeId', 'companyId', 'clientCompanyId', 'searchText'],
  writes: { searchText: 'text' },
  values: cargoSearch,
} as const;

const PHASES: Record<BulkKind, Phase[]> = {
  CARGO_OF_COMPANY: [{ table: 'cargo', by: 'companyId', ...CARGO_SEARCH }],
  ITEMS_OF_CLIENT_COMPANY: [
    {
      table: 'parcel',
      by: 'clientCompanyId',
      reads: ['trackCode', 'description', 'cargoTypeId', 'searchText'],
      writes: { searchText: 'text' },
      async values(db, target, rows) {
        const codes = (await codeNamesByCompany(db, [target])).get(target) ?? [];
        return rows.map((r) => ({ searchText: parcelSearchText(r as any, codeNamesFor(codes, r.cargoTypeId)) }));
      },
    },
    { table: 'cargo', by: 'clientCompanyId', ...CARGO_SEARCH },
  ],
  ITEMS_AT_WAREHOUSE: [
    {
      table: 'parcel',
      by: 'currentWarehouseId',
      reads: ['status', 'deliveryMethod', 'currentWarehouseId', 'deliveryWarehouseId', 'atPickupPoint', 'atFinalPoint'],
      writes: { atPickupPoint: 'integer', atFinalPoint: 'integer' },
      async values(db, target, rows) {
        const isPickupPoint = await pickupPoint(db, target);
        return rows.map((r) => ({
          atPickupPoint: isPickupPoint ? 1 : 0,
          atFinalPoint: parcelAtFinalPoint({ ...(r as any), status: r.status as ParcelStatus }, isPickupPoint) ? 1 : 0,
        }));
      },
    },
    {
      table: 'cargo',
      by: 'currentWarehouseId',
      reads: ['status', 'currentWarehouseId', 'deliveryWarehouseId', 'atPickupPoint', 'atFinalPoint'],
      writes: { atPickupPoint: 'integer', atFinalPoint: 'integer' },
      async values(db, target, rows) {
        const isPickupPoint = await pickupPoint(db, target);
        return rows.map((r) => ({
          atPickupPoint: isPickupPoint ? 1 : 0,
          atFinalPoint: cargoAtFinalPoint({ ...(r as any), status: r.status as CargoStatus }, isPickupPoint) ? 1 : 0,
        }));
      },
    },
  ],
};

/**
 * Queues a rewrite in the caller's transaction: it commits with the change that calls for it.
 * Nothing is queued when no row would be rewritten (a company made a moment ago has no cargo).
 */
export async function queueBulkJob(trx: Db, kind: BulkKind, targetId: number, now: Date): Promise<void> {
  for (const phase of PHASES[kind]) {
    if (await anyItemWith(trx, phase.table, phase.by, targetId)) {
      await insertBulkJob(trx, kind, targetId, now.toISOString());
      return;
    }
  }
}

/**
 * Runs `change` in a transaction; when it is not part of a larger one (the demo seed writes a
 * whole dataset in one), also runs the jobs it queued to their end, so the caller sees a
 * finished rewrite, made of short transactions.
 */
export async function withBulkJobs<T>(db: Db, change: (trx: Db) => Promise<T>): Promise<T> {
  const nested = db.isTransaction;
  const out = await inTransaction(db, change);
  if (!nested) await runBulkJobs(db);
  return out;
}

export interface BulkRun {
  batch?: number;
  /** stop after this many batches (what is left stays queued) */
  maxBatches?: number;
  /** one line now and then on long work */
  progress?: (line: string) => void;
}

/** Another runner moved the job's cursor first: this batch is rolled back, nothing is lost. */
class Overtaken extends Error {}

/** Runs every pending job to its end; returns how many rows were rewritten. */
export async function runBulkJobs(db: Db, options: BulkRun = {}): Promise<number> {
  const batch = options.batch ?? BULK_BATCH;
  let rewritten = 0;
  let batches = 0;
  for (;;) {
    if (options.maxBatches !== undefined && batches >= options.maxBatches) break;
    const job = await firstBulkJob(db);
    if (!job) break;
    const started = performance.now();
    try {
      rewritten += await db.transaction().execute((trx) => step(trx, job, batch));
    } catch (err) {
      if (!(err instanceof Overtaken)) throw err;
    }
    if (++batches % 20 === 0) options.progress?.(`rewriting rows: ${rewritten} so far`);
    // Between batches the lock is free for a while: SQLite has no queue of waiting writers, and
    // a runner that took the lock again at once would starve the cloud's order creations.
    await new Promise((r) => setTimeout(r, Math.max(5, Math.min(performance.now() - started, 25))));
  }
  return rewritten;
}

/** One batch of one job, and its cursor, in the caller's transaction; returns the rows it changed. */
async function step(trx: Db, job: BulkJob, batch: number): Promise<number> {
  const phases = PHASES[job.kind as BulkKind];
  const phase = phases?.[job.phase];
  if (!phase) {
    await deleteBulkJob(trx, job.id);
    return 0;
  }
  const rows = await itemsAfter(trx, phase.table, phase.reads, phase.by, job.targetId, job.afterId, batch);
  const next = rows.length
    ? { phase: job.phase, afterId: rows[rows.length - 1].id }
    : { phase: job.phase + 1, afterId: 0 };
  const moved = await moveBulkJobCursor(trx, job, next.phase >= phases.length ? 'done' : next);
  if (moved !== 1) throw new Overtaken();
  if (!rows.length) return 0;
  const values = await phase.values(trx, job.targetId, rows);
  const changed = rows.flatMap((r, i) =>
    Object.entries(values[i]).some(([k, v]) => r[k] !== v) ? [{ id: r.id, ...values[i] }] : [],
  );
  if (changed.length) await writeRows(trx, phase.table, phase.writes, changed);
  return changed.length;
}
