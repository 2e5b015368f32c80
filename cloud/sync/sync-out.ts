/**
 * Sync messages for one locker, built from the database: a full snapshot of the orders its
 * agent holds, or a delta of the orders changed after a version; both with its cell map. The
 * locker's version is read first: a change committed while the orders are read is either in
 * this message already or has a later version and goes out next time; re-sending an order is
 * harmless (upserts).
 */
import {
  CONTRACT_VERSION,
  type CellMap,
  type SyncMessageWithCells as SyncMessage,
  type SyncOrder,
} from '../../shared/mqtt/index.ts';
import { heldByLocker, planSync } from '../domain/locker-sync.ts';
import type { Db } from '../storage/database.ts';
import { cellMapRowsAt } from '../storage/cell-queries.ts';
import { codesOfOrders, ordersHeldAt, syncRowsOf } from '../storage/locker-held-orders.ts';
import { lockerVersion, ordersChangedSince } from '../storage/locker-sync-queries.ts';

const CHUNK = 500;

/** What to send an agent that announced `reported` (undefined: nothing to send). */
export async function syncForAnnouncement(
  db: Db,
  postomatId: string,
  reported: number,
): Promise<SyncMessage | undefined> {
  const { version, floor } = await lockerVersion(db, postomatId);
  const plan = planSync(reported, version, floor);
  if (plan.kind === 'none') return undefined;
  if (plan.kind === 'full') return fullSync(db, postomatId, version);
  const delta = await deltaSync(db, postomatId, plan.since, version);
  // The retention pruner deletes change rows and raises the floor in one commit: if it
  // committed after the floor was read, rows after `since` may be missing from this delta
  // (a removal lost would leave a finished order's codes live at the locker), and the floor
  // read now says so.
  return (await lockerVersion(db, postomatId)).floor > plan.since ? fullSync(db, postomatId, version) : delta;
}

export async function fullSync(db: Db, postomatId: string, version: number): Promise<SyncMessage> {
  const orders = await ordersHeldAt(db, postomatId);
  return {
    v: CONTRACT_VERSION,
    version,
    full: true,
    upserts: await withCodes(db, orders),
    removals: [],
    cells: await cellMapOf(db, postomatId),
  };
}

/** The orders changed after `since`: those the agent should hold as upserts, the others as removals. */
export async function deltaSync(db: Db, postomatId: string, since: number, version: number): Promise<SyncMessage> {
  const changed = await ordersChangedSince(db, postomatId, since);
  const ids = changed.map((c) => c.orderId);
  const orders: OrderRow[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    orders.push(...(await syncRowsOf(db, ids.slice(i, i + CHUNK))));
  }
  const held = orders.filter((o) => heldByLocker(o, postomatId));
  const heldIds = new Set(held.map((o) => o.id));
  return {
    v: CONTRACT_VERSION,
    version,
    full: false,
    since,
    upserts: await withCodes(db, held),
    removals: ids.filter((id) => !heldIds.has(id)),
    cells: await cellMapOf(db, postomatId),
  };
}

/**
 * The locker's cells as the cloud knows them, in every sync message: the agent places parcels
 * only in these (when active), so it never opens a cell the cloud would not accept a parcel in.
 */
export async function cellMapOf(db: Db, postomatId: string): Promise<CellMap> {
  const rows = await cellMapRowsAt(db, postomatId);
  return rows.map((c) => ({
    cellId: String(c.number),
    size: c.size as CellMap[number]['size'],
    isActive: c.isActive === 1,
  }));
}

interface OrderRow {
  id: string;
  postomatId: string;
  status: string;
  isActive: number;
  notPaidAmount: number;
  endDateTime: string | null;
  cellSize?: string | null;
  kind?: string;
  cellNumber: number | null;
}

async function withCodes(db: Db, orders: OrderRow[]): Promise<SyncOrder[]> {
  const codes = new Map<string, Record<string, string>>();
  for (let i = 0; i < orders.length; i += CHUNK) {
    const chunk = orders.slice(i, i + CHUNK).map((o) => o.id);
    const rows = await codesOfOrders(db, chunk);
    for (const r of rows) codes.set(r.orderId, { ...codes.get(r.orderId), [r.type]: r.password });
  }
  return orders.map((o) => {
    const c = codes.get(o.id) ?? {};
    return {
      orderId: o.id,
      codes: { DOWN: c.DOWN, UP: c.UP, SUBTRACT: c.SUBTRACT },
      notPaidAmount: Number(o.notPaidAmount),
      status: o.status as SyncOrder['status'],
      // A sized order (issue 22): the agent opens a free cell of this size or the next larger.
      ...(o.cellSize ? { cellSize: o.cellSize as SyncOrder['cellSize'] } : {}),
      // The agent names cells by their number (docs/field-technicians.md).
      cellId: o.cellNumber === null ? null : String(o.cellNumber),
      // Only a placed parcel has a storage end (issue 22: an extension reaches the locker).
      ...(o.status === 'DELIVERED' && o.endDateTime ? { storageEnd: o.endDateTime } : {}),
      // Only a return says so: a delivery's message stays as it was (older agents, the contract's 1.0).
      ...(o.kind === 'RETURN' && { kind: 'RETURN' as const }),
    };
  });
}
