/** Tables of the agent's store; `IF NOT EXISTS` so opening an existing store is a no-op. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orders (
    order_id TEXT PRIMARY KEY,
    down_code TEXT NOT NULL,
    up_code TEXT NOT NULL,
    subtract_code TEXT NOT NULL,
    not_paid_amount INTEGER NOT NULL,
    status TEXT NOT NULL,
    cell_size TEXT,
    cell_id TEXT,
    storage_end TEXT,
    kind TEXT
);
CREATE INDEX IF NOT EXISTS orders_down ON orders (down_code);
CREATE INDEX IF NOT EXISTS orders_up ON orders (up_code);
CREATE INDEX IF NOT EXISTS orders_subtract ON orders (subtract_code);
CREATE TABLE IF NOT EXISTS cell_faults (cell_id TEXT PRIMARY KEY, fault TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS intents (
    intent_id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    order_id TEXT,
    cell_id TEXT NOT NULL,
    command_id TEXT,
    started_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands_done (command_id TEXT PRIMARY KEY, response TEXT NOT NULL);
`;

/**
 * Columns added after the first release, for stores created before them (SQLite has no
 * `ADD COLUMN IF NOT EXISTS`: the store adds those its table lacks when it opens).
 */
export const ADDED_COLUMNS: ReadonlyArray<{ table: string; column: string; type: string }> = [
  // The cloud's storage end of a placed order (issue 22).
  { table: 'orders', column: 'storage_end', type: 'TEXT' },
  // Returns (issue 22): NULL is a delivery.
  { table: 'orders', column: 'kind', type: 'TEXT' },
];
