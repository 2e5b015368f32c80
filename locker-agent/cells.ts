import { EventEmitter } from 'node:events';
import type { CellReport, CellSize } from '../shared/mqtt/index.ts';
import type { Clock } from './clock.ts';
import type { BoardStatus, LockBus } from './boards/lock-bus.ts';
import type { CellConfig } from './config.ts';

export interface CellView {
  lockClosed: boolean | null;
  parcelPresent: boolean | null;
}

interface Watcher {
  cellId: string;
  predicate: (view: CellView) => boolean;
  resolve: (view: CellView | undefined) => void;
  timer: unknown;
}

/**
 * Live view of every cell from the board status stream. A cell of a board that stopped
 * answering reads null (unknown), never "closed": a silent board may have an open door.
 */
export class CellMonitor extends EventEmitter<{ change: [CellReport[]] }> {
  private readonly views = new Map<string, CellView>();
  private readonly watchers = new Set<Watcher>();
  private lastReport = '';

  constructor(
    readonly cells: readonly CellConfig[],
    private readonly bus: LockBus,
    private readonly clock: Clock,
    private readonly faults: () => Map<string, string>,
  ) {
    super();
  }

  start(): void {
    for (const cell of this.cells) this.views.set(cell.cellId, { lockClosed: null, parcelPresent: null });
    this.bus.on('status', (s) => this.onStatus(s));
    this.bus.on('boardOffline', (board) => this.onOffline(board));
  }

  cell(cellId: string): CellConfig | undefined {
    return this.cells.find((c) => c.cellId === cellId);
  }

  view(cellId: string): CellView {
    return this.views.get(cellId) ?? { lockClosed: null, parcelPresent: null };
  }

  report(): CellReport[] {
    const faults = this.faults();
    return this.cells.map((c) => {
      const v = this.view(c.cellId);
      const state = faults.has(c.cellId) ? 'BROKEN' : v.lockClosed === null ? 'UNKNOWN' : 'OK';
      return {
        cellId: c.cellId,
        size: c.size as CellSize,
        lockClosed: v.lockClosed,
        parcelPresent: v.parcelPresent,
        state,
      };
    });
  }

  /** Resolves with the view once the predicate holds, or undefined after `ms` (or on cancel). */
  waitFor(cellId: string, predicate: (view: CellView) => boolean, ms: number): Promise<CellView | undefined> {
    const now = this.view(cellId);
    if (predicate(now)) return Promise.resolve(now);
    return new Promise((resolve) => {
      const watcher: Watcher = { cellId, predicate, resolve, timer: undefined };
      if (Number.isFinite(ms)) {
        watcher.timer = this.clock.setTimeout(() => {
          this.watchers.delete(watcher);
          resolve(undefined);
        }, ms);
      }
      this.watchers.add(watcher);
    });
  }

  /** Ends every pending wait with undefined (agent stopping). */
  cancelAll(): void {
    for (const w of this.watchers) {
      this.clock.clearTimeout(w.timer);
      w.resolve(undefined);
    }
    this.watchers.clear();
  }

  /** Re-announce the report, e.g. after a fault was recorded. */
  refresh(): void {
    this.publishIfChanged();
  }

  private onStatus(status: BoardStatus): void {
    for (const cell of this.cells) {
      if (cell.board !== status.board) continue;
      this.views.set(cell.cellId, {
        lockClosed: status.closed[cell.lock - 1],
        parcelPresent: status.parcel[cell.lock - 1],
      });
    }
    this.settle();
  }

  private onOffline(board: number): void {
    for (const cell of this.cells)
      if (cell.board === board) this.views.set(cell.cellId, { lockClosed: null, parcelPresent: null });
    this.settle();
  }

  private settle(): void {
    for (const w of this.watchers) {
      const view = this.view(w.cellId);
      if (!w.predicate(view)) continue;
      this.clock.clearTimeout(w.timer);
      this.watchers.delete(w);
      w.resolve(view);
    }
    this.publishIfChanged();
  }

  private publishIfChanged(): void {
    const report = this.report();
    const key = JSON.stringify(report);
    if (key === this.lastReport) return;
    this.lastReport = key;
    this.emit('change', report);
  }
}
