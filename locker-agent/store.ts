import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createId } from '@paralleldrive/cuid2';
import {
  CONTRACT_VERSION,
  SyncMessageWithCells,
  type CellMapEntry,
  type CellSize,
  type CodeKind,
  type LockerEvent,
  type OrderKind,
  type OrderStatus,
  type SyncOrder,
} from '../shared/mqtt/index.ts';
import { ADDED_COLUMNS, SCHEMA } from './store-schema.ts';
import { prepareSqliteFile, restrictSqliteCompanions } from '../shared/private-files.ts';

export interface StoredOrder {
  orderId: string;
  codes: Record<CodeKind, string>;
  notPaidAmount: number;
  status: OrderStatus;
  cellSize: CellSize | null;
  cellId: string | null;
  /** End of the storage period (ISO) as the cloud last sent it; null until placed, or from an older cloud. */
  storageEnd: string | null;
  /** RETURN: the sender drops off (DOWN), a courier collects (UP); only the words differ */
  kind: OrderKind;
}

export type IntentKind = 'PLACE' | 'PICKUP' | 'SUBTRACT' | 'OPEN';

/** "About to unlock cell X for order Y", written before the unlock frame goes out. */
export interface Intent {
  intentId: number;
  kind: IntentKind;
  orderId: string | null;
  cellId: string;
  commandId: string | null;
  startedAt: string;
}

/** `gap`: a delta that starts after a version this store does not hold yet (ask for a resend). */
export interface SyncResult {
  applied: boolean;
  version: number;
  gap?: boolean;
  /** the message changed what the store holds of the cloud's cell map */
  cellMapChanged?: boolean;
}

/**
 * The cloud's cell map as the store holds it: none received yet (a store from before cell maps);
 * `legacy` when the cloud's full snapshot carried none (a cloud older than cell maps); or the
 * map itself, by cell id. Without a map the config's cells are used unchecked (cell-map.ts).
 */
export type CloudCellMap =
  | { state: 'none' }
  | { state: 'legacy' }
  | { state: 'map'; cells: ReadonlyMap<string, CellMapEntry> };

const CELL_MAP_KEY = 'cloudCellMap';

/** Event fields the caller chooses; the store adds v, eventId and seq. */
export type NewEvent = Omit<LockerEvent, 'v' | 'eventId' | 'seq'>;

export interface OrderChange {
  orderId: string;
  status: OrderStatus;
  cellId: string | null;
}

const STATUS_RANK: Record<OrderStatus, number> = { CREATED: 0, DELIVERED: 1, COMPLETED: 2, SUBTRACTED: 2 };

/**
 * The agent's durable state: its copy of the orders, cell faults, open intents and the outbox.
 * WAL with synchronous=FULL: a locker loses power without warning, and an event the person at
 * the door already saw happen must still be there after the reboot.
 */
const CHECKPOINT_EVERY_MS = 10_000;

export class AgentStore {
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(private readonly db: Database.Database) {}

  /** Prepared once: the keypad → unlock path runs several queries and should stay sub-ms. */
  private sql(source: string): Database.Statement {
    let stmt = this.statements.get(source);
    if (!stmt) {
      stmt = this.db.prepare(source);
      this.statements.set(source, stmt);
    }
    return stmt;
  }

  static open(dataDir: string): AgentStore {
    // agent.db holds every order's codes: created owner-only (shared/private-files.ts).
    const file = join(dataDir, 'agent.db');
    const created = prepareSqliteFile(file);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    if (created) restrictSqliteCompanions(file);
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    // SQLite's automatic checkpoint runs inside whichever commit crosses 1000 WAL pages and
    // syncs the whole database file: a multi-millisecond stall that would land on the
    // keypad → unlock path. Checkpoint from a timer instead, between operations.
    db.pragma('wal_autocheckpoint = 0');
    db.exec(SCHEMA);
    addMissingColumns(db);
    const store = new AgentStore(db);
    store.checkpointTimer = setInterval(() => store.checkpoint(), CHECKPOINT_EVERY_MS);
    store.checkpointTimer.unref();
    return store;
  }

  private checkpointTimer?: NodeJS.Timeout;

  /** Copies the WAL into the database file without waiting for readers (PASSIVE). */
  checkpoint(): void {
    if (this.db.open) this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  close(): void {
    clearInterval(this.checkpointTimer);
    this.checkpoint();
    this.db.close();
  }

  // ---- sync ------------------------------------------------------------------------------

  syncVersion(): number {
    return Number(this.meta('syncVersion') ?? 0);
  }

  /**
   * The one entry point the cloud sync drives (and the JSON file / simulator today). A local
   * status never moves backwards: the cloud may not have ingested our PLACED event yet.
   */
  applySync(input: unknown): SyncResult {
    const msg = SyncMessageWithCells.parse(input);
    // A delta built on a version we do not hold would silently skip the changes in between.
    if (!msg.full && msg.since !== undefined && msg.since > this.syncVersion())
      return { applied: false, version: this.syncVersion(), gap: true };
    const before = this.meta(CELL_MAP_KEY);
    const apply = this.db.transaction(() => {
      if (!msg.full && msg.version <= this.syncVersion()) return false;
      if (msg.full) this.dropOrdersNotIn(new Set(msg.upserts.map((o) => o.orderId)));
      for (const order of msg.upserts) this.upsertOrder(order);
      for (const orderId of msg.removals) this.sql('DELETE FROM orders WHERE order_id = ?').run(orderId);
      this.setMeta('syncVersion', String(msg.version));
      // The map comes with the orders it applies to; a full snapshot without one is from a
      // cloud that has none to give.
      if (msg.cells) this.setMeta(CELL_MAP_KEY, JSON.stringify(msg.cells));
      else if (msg.full) this.setMeta(CELL_MAP_KEY, 'legacy');
      return true;
    });
    const applied = apply();
    const after = this.meta(CELL_MAP_KEY);
    if (after !== before) this.cellMapCache = undefined;
    return { applied, version: this.syncVersion(), ...(after !== before && { cellMapChanged: true }) };
  }

  private cellMapCache: CloudCellMap | undefined;

  /** What the store holds of the cloud's cell map (read on every placement: cached). */
  cloudCellMap(): CloudCellMap {
    if (this.cellMapCache) return this.cellMapCache;
    const raw = this.meta(CELL_MAP_KEY);
    this.cellMapCache =
      raw === undefined
        ? { state: 'none' }
        : raw === 'legacy'
          ? { state: 'legacy' }
          : { state: 'map', cells: new Map((JSON.parse(raw) as CellMapEntry[]).map((c) => [c.cellId, c])) };
    return this.cellMapCache;
  }

  private upsertOrder(o: SyncOrder): void {
    const local = this.order(o.orderId);
    const keepLocal = local !== undefined && STATUS_RANK[local.status] > STATUS_RANK[o.status];
    this.sql(
      `INSERT INTO orders (order_id, down_code, up_code, subtract_code, not_paid_amount, status, cell_size, cell_id, storage_end, kind)
                 VALUES (@orderId, @down, @up, @subtract, @notPaid, @status, @cellSize, @cellId, @storageEnd, @kind)
                 ON CONFLICT(order_id) DO UPDATE SET down_code = @down, up_code = @up, subtract_code = @subtract,
                   not_paid_amount = @notPaid, status = @status, cell_size = @cellSize, cell_id = @cellId, storage_end = @storageEnd, kind = @kind`,
    ).run({
      orderId: o.orderId,
      down: o.codes.DOWN,
      up: o.codes.UP,
      subtract: o.codes.SUBTRACT,
      notPaid: o.notPaidAmount,
      status: keepLocal ? local.status : o.status,
      cellSize: o.cellSize ?? null,
      kind: o.kind === 'RETURN' ? 'RETURN' : null,
      cellId: (keepLocal ? local.cellId : o.cellId) ?? local?.cellId ?? null,
      storageEnd: o.storageEnd ?? local?.storageEnd ?? null,
    });
  }

  /** A full snapshot replaces the orders, except those with work in flight here. */
  private dropOrdersNotIn(keep: Set<string>): void {
    const busy = new Set(this.openIntents().map((i) => i.orderId));
    for (const { order_id } of this.sql('SELECT order_id FROM orders').all() as { order_id: string }[]) {
      if (!keep.has(order_id) && !busy.has(order_id)) this.sql('DELETE FROM orders WHERE order_id = ?').run(order_id);
    }
  }

  // ---- orders ----------------------------------------------------------------------------

  order(orderId: string): StoredOrder | undefined {
    const row = this.sql('SELECT * FROM orders WHERE order_id = ?').get(orderId) as OrderRow | undefined;
    return row && toOrder(row);
  }

  /** Every order holding this code under one of its three kinds. */
  ordersByCode(code: string): { order: StoredOrder; kind: CodeKind }[] {
    const rows = this.db
      .prepare('SELECT * FROM orders WHERE down_code = @code OR up_code = @code OR subtract_code = @code')
      .all({ code }) as OrderRow[];
    return rows.map((row) => {
      const kind: CodeKind = row.down_code === code ? 'DOWN' : row.up_code === code ? 'UP' : 'SUBTRACT';
      return { order: toOrder(row), kind };
    });
  }

  orders(): StoredOrder[] {
    return (this.sql('SELECT * FROM orders ORDER BY order_id').all() as OrderRow[]).map(toOrder);
  }

  /** Cells holding a parcel of an order still in the locker. */
  occupiedCells(): Map<string, string> {
    const rows = this.sql(
      `SELECT cell_id, order_id FROM orders WHERE status = 'DELIVERED' AND cell_id IS NOT NULL`,
    ).all() as {
      cell_id: string;
      order_id: string;
    }[];
    return new Map(rows.map((r) => [r.cell_id, r.order_id]));
  }

  // ---- cell faults -----------------------------------------------------------------------

  setCellFault(cellId: string, fault: string, at: string): void {
    this.sql('INSERT OR REPLACE INTO cell_faults (cell_id, fault, at) VALUES (?, ?, ?)').run(cellId, fault, at);
  }

  clearCellFault(cellId: string): void {
    this.sql('DELETE FROM cell_faults WHERE cell_id = ?').run(cellId);
  }

  cellFaults(): Map<string, string> {
    const rows = this.sql('SELECT cell_id, fault FROM cell_faults').all() as { cell_id: string; fault: string }[];
    return new Map(rows.map((r) => [r.cell_id, r.fault]));
  }

  // ---- intents ---------------------------------------------------------------------------

  beginIntent(
    kind: IntentKind,
    cellId: string,
    orderId: string | null,
    startedAt: string,
    commandId: string | null = null,
  ): Intent {
    const info = this.db
      .prepare('INSERT INTO intents (kind, order_id, cell_id, command_id, started_at) VALUES (?, ?, ?, ?, ?)')
      .run(kind, orderId, cellId, commandId, startedAt);
    return { intentId: Number(info.lastInsertRowid), kind, orderId, cellId, commandId, startedAt };
  }

  openIntents(): Intent[] {
    const rows = this.sql('SELECT * FROM intents ORDER BY intent_id').all() as IntentRow[];
    return rows.map((r) => ({
      intentId: r.intent_id,
      kind: r.kind,
      orderId: r.order_id,
      cellId: r.cell_id,
      commandId: r.command_id,
      startedAt: r.started_at,
    }));
  }

  /**
   * Closes an intent and records its outcome in one transaction. Returns the appended events,
   * or undefined when the intent was already closed: the outcome is recorded exactly once even
   * if a restart's reconciliation and a live session race for it.
   */
  resolveIntent(
    intentId: number,
    outcome: { events?: NewEvent[]; order?: OrderChange; fault?: { cellId: string; fault: string; at: string } },
  ): LockerEvent[] | undefined {
    const run = this.db.transaction(() => {
      const intent = this.sql('SELECT command_id FROM intents WHERE intent_id = ?').get(intentId) as
        | { command_id: string | null }
        | undefined;
      const gone = this.sql('DELETE FROM intents WHERE intent_id = ?').run(intentId);
      if (gone.changes !== 1) return undefined;
      // A staff command whose door cycle ended (possibly after a restart) is done: a
      // redelivery must be answered, not open the cell a second time.
      if (intent?.command_id) {
        this.sql('INSERT OR IGNORE INTO commands_done (command_id, response) VALUES (?, ?)').run(
          intent.command_id,
          JSON.stringify({ v: CONTRACT_VERSION, commandId: intent.command_id, status: 'ok' }),
        );
      }
      if (outcome.order) {
        this.sql('UPDATE orders SET status = ?, cell_id = ? WHERE order_id = ?').run(
          outcome.order.status,
          outcome.order.cellId,
          outcome.order.orderId,
        );
      }
      if (outcome.fault) this.setCellFault(outcome.fault.cellId, outcome.fault.fault, outcome.fault.at);
      return (outcome.events ?? []).map((e) => this.insertEvent(e));
    });
    return run();
  }

  // ---- outbox ----------------------------------------------------------------------------

  appendEvent(event: NewEvent): LockerEvent {
    return this.db.transaction(() => this.insertEvent(event))();
  }

  /** AUTOINCREMENT keeps seq increasing across restarts even after acked rows are deleted. */
  private insertEvent(event: NewEvent): LockerEvent {
    const eventId = createId();
    const info = this.sql(`INSERT INTO outbox (event_id, body) VALUES (?, '{}')`).run(eventId);
    const full: LockerEvent = { v: CONTRACT_VERSION, eventId, seq: Number(info.lastInsertRowid), ...event };
    this.sql('UPDATE outbox SET body = ? WHERE seq = ?').run(JSON.stringify(full), full.seq);
    return full;
  }

  /** Events not yet acknowledged by the cloud (health reports). */
  outboxSize(): number {
    return Number((this.sql('SELECT count(*) AS n FROM outbox').get() as { n: number }).n);
  }

  /** Events not yet acknowledged by the cloud, oldest first. */
  pendingEvents(limit = 1000): LockerEvent[] {
    const rows = this.sql('SELECT body FROM outbox ORDER BY seq LIMIT ?').all(limit) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as LockerEvent);
  }

  /** The cloud committed the event: only now may it leave the outbox. */
  ack(eventId: string): boolean {
    return this.sql('DELETE FROM outbox WHERE event_id = ?').run(eventId).changes === 1;
  }

  // ---- commands and meta -----------------------------------------------------------------

  commandResponse(commandId: string): string | undefined {
    const row = this.sql('SELECT response FROM commands_done WHERE command_id = ?').get(commandId) as
      | { response: string }
      | undefined;
    return row?.response;
  }

  recordCommand(commandId: string, response: string): void {
    this.sql('INSERT OR IGNORE INTO commands_done (command_id, response) VALUES (?, ?)').run(commandId, response);
  }

  meta(key: string): string | undefined {
    const row = this.sql('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.sql('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }
}

interface OrderRow {
  order_id: string;
  down_code: string;
  up_code: string;
  subtract_code: string;
  not_paid_amount: number;
  status: OrderStatus;
  cell_size: CellSize | null;
  cell_id: string | null;
  storage_end: string | null;
  kind: string | null;
}

interface IntentRow {
  intent_id: number;
  kind: IntentKind;
  order_id: string | null;
  cell_id: string;
  command_id: string | null;
  started_at: string;
}

function toOrder(row: OrderRow): StoredOrder {
  return {
    orderId: row.order_id,
    codes: { DOWN: row.down_code, UP: row.up_code, SUBTRACT: row.subtract_code },
    notPaidAmount: row.not_paid_amount,
    status: row.status,
    cellSize: row.cell_size,
    cellId: row.cell_id,
    storageEnd: row.storage_end,
    kind: row.kind === 'RETURN' ? 'RETURN' : 'DELIVERY',
  };
}

function addMissingColumns(db: Database.Database): void {
  for (const { table, column, type } of ADDED_COLUMNS) {
    const columns = db.pragma(`table_info(${table})`) as { name: string }[];
    if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }
}
