import type { CellReport, LockerEvent } from '../shared/mqtt/index.ts';
import { isoNow, type Clock } from './clock.ts';
import type { CellMonitor } from './cells.ts';
import type { Log } from './display.ts';
import type { AgentStore } from './store.ts';

/**
 * Doors that open with no command of the agent behind them. A latched door cannot be pulled
 * open, so a cell that read closed and now reads open while no door cycle (intent) of the agent
 * is open for it was forced, or its latch let go: a TAMPER event. If it then stays open past
 * doorOpenAlarmMs, a DOOR_LEFT_OPEN too (doors the agent opened have their own, sessions.ts).
 * Both go through the outbox, so the cloud gets each exactly once. A door already open when the
 * agent starts, or while its board is silent, is not taken for tampering: only a change seen.
 */
export class TamperWatch {
  private readonly lastClosed = new Map<string, boolean>();
  private readonly timers = new Map<string, unknown>();

  constructor(
    private readonly cells: CellMonitor,
    private readonly store: AgentStore,
    private readonly clock: Clock,
    private readonly doorOpenAlarmMs: number,
    private readonly log: Log,
    private readonly emit: (events: LockerEvent[]) => void,
  ) {}

  start(): void {
    this.cells.on('change', (report) => this.check(report));
  }

  stop(): void {
    for (const t of this.timers.values()) this.clock.clearTimeout(t);
    this.timers.clear();
  }

  private commanded(cellId: string): boolean {
    return this.store.openIntents().some((i) => i.cellId === cellId);
  }

  private check(report: readonly CellReport[]): void {
    for (const cell of report) {
      if (cell.lockClosed === null) continue;
      const before = this.lastClosed.get(cell.cellId);
      this.lastClosed.set(cell.cellId, cell.lockClosed);
      if (cell.lockClosed) {
        this.clock.clearTimeout(this.timers.get(cell.cellId));
        this.timers.delete(cell.cellId);
        continue;
      }
      if (before !== true || this.commanded(cell.cellId)) continue;
      this.log.warn(`cell ${cell.cellId} opened without a command: TAMPER`);
      this.emit([this.store.appendEvent({ type: 'TAMPER', cellId: cell.cellId, at: isoNow(this.clock) })]);
      this.timers.set(
        cell.cellId,
        this.clock.setTimeout(() => this.leftOpen(cell.cellId), this.doorOpenAlarmMs),
      );
    }
  }

  private leftOpen(cellId: string): void {
    this.timers.delete(cellId);
    if (this.cells.view(cellId).lockClosed !== false || this.commanded(cellId)) return;
    this.log.warn(`cell ${cellId} left open after being opened without a command: DOOR_LEFT_OPEN`);
    this.emit([this.store.appendEvent({ type: 'DOOR_LEFT_OPEN', cellId, at: isoNow(this.clock) })]);
  }
}
