import type { LockerEvent } from '../shared/mqtt/index.ts';
import { isoNow, sleep, type Clock } from './clock.ts';
import type { LockBus } from './boards/lock-bus.ts';
import type { CellMonitor } from './cells.ts';
import type { Display, Log } from './display.ts';
import type { AgentStore, Intent, NewEvent, OrderChange } from './store.ts';

export interface SessionTiming {
  unlockConfirmMs: number;
  doorOpenAlarmMs: number;
}

export type OpenOutcome = 'OPENED' | 'JAMMED' | 'BOARD_SILENT';

/**
 * One door cycle: intent written → unlock → door seen open → door seen closed → outcome from the
 * parcel sensor, recorded together with the intent's removal. The same `watchDoor` finishes an
 * intent found open after a restart, so an outcome is recorded exactly once either way.
 */
export class DoorSessions {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: AgentStore,
    private readonly bus: LockBus,
    private readonly cells: CellMonitor,
    private readonly display: Display,
    private readonly clock: Clock,
    private readonly timing: SessionTiming,
    private readonly log: Log,
    private readonly onEvents: (events: LockerEvent[]) => void,
  ) {}

  /** Records the intent durably, then pulses the lock and waits for the door to read open. */
  async open(intent: Intent): Promise<OpenOutcome> {
    const cell = this.cells.cell(intent.cellId);
    if (!cell) throw new Error(`cell ${intent.cellId} is not in the cell map`);
    const parcelBefore = this.cells.view(cell.cellId).parcelPresent;
    const result = await this.bus.unlock(cell.board, cell.lock);
    let opened = false;
    if (result.ok) {
      opened =
        (await this.cells.waitFor(cell.cellId, (v) => v.lockClosed === false, this.timing.unlockConfirmMs)) !==
        undefined;
      // A quick hand can open and shut the door between two status reads: a parcel that
      // came or went proves the door opened, and watchDoor then finishes the cycle at once.
      const parcelNow = this.cells.view(cell.cellId).parcelPresent;
      if (!opened && parcelBefore !== null && parcelNow !== null && parcelNow !== parcelBefore) opened = true;
    } else {
      // No answer to the unlock: only the status can say whether the pulse happened.
      const status = await this.bus.readStatus(cell.board);
      opened = status !== undefined && !status.closed[cell.lock - 1];
      if (!status) return this.fail(intent, 'BOARD_SILENT');
    }
    // Stopping mid-wait proves nothing about the lock: leave the intent for the restart.
    if (this.stopped) throw new Error('agent stopping');
    if (!opened) return this.fail(intent, result.ok ? 'JAMMED' : 'BOARD_SILENT');
    this.log.info(`cell ${cell.cellId} open (${intent.kind}${intent.orderId ? ` order ${intent.orderId}` : ''})`);
    return 'OPENED';
  }

  /** Watch in the background until the door closes; `stop()` leaves the intent for a restart. */
  track(intent: Intent): void {
    const p = this.watchDoor(intent).catch((err) =>
      this.log.error(`door watch of ${intent.cellId}: ${(err as Error).message}`),
    );
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  /** Intents left open by a crash or power loss: finish them from what the board reports now. */
  resumeAll(): void {
    for (const intent of this.store.openIntents()) {
      this.log.warn(`resuming ${intent.kind} of cell ${intent.cellId} left open before restart`);
      // A restart quicker than the latch release could read the still-closed door as
      // "nothing happened": give the lock the confirmation time counted from the intent.
      const grace = Date.parse(intent.startedAt) + this.timing.unlockConfirmMs - this.clock.now();
      if (grace > 0) {
        const p = sleep(this.clock, grace).then(() => (this.stopped ? undefined : this.track(intent)));
        this.running.add(p);
        void p.finally(() => this.running.delete(p));
      } else this.track(intent);
    }
  }

  busyCells(): Set<string> {
    return new Set(this.store.openIntents().map((i) => i.cellId));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cells.cancelAll();
    await Promise.all([...this.running]);
  }

  private async watchDoor(intent: Intent): Promise<void> {
    let alarmed = false;
    for (;;) {
      const ms = alarmed ? Infinity : this.timing.doorOpenAlarmMs;
      const view = await this.cells.waitFor(intent.cellId, (v) => v.lockClosed === true, ms);
      if (this.stopped) return;
      if (view) return this.finish(intent, view.parcelPresent === true);
      // Unknown (silent board) is not "left open": wait on without raising the alarm.
      if (this.cells.view(intent.cellId).lockClosed !== false) continue;
      alarmed = true;
      this.emit(
        this.store.appendEvent({
          type: 'DOOR_LEFT_OPEN',
          cellId: intent.cellId,
          orderId: intent.orderId ?? undefined,
          at: isoNow(this.clock),
        }),
      );
      this.display.show(`Please close the door of cell ${intent.cellId}`);
    }
  }

  private finish(intent: Intent, parcelPresent: boolean): void {
    const at = isoNow(this.clock);
    const base = {
      cellId: intent.cellId,
      orderId: intent.orderId ?? undefined,
      at,
      commandId: intent.commandId ?? undefined,
    };
    let event: NewEvent | undefined;
    let order: OrderChange | undefined;
    let message: string;
    const isReturn = intent.orderId !== null && this.store.order(intent.orderId)?.kind === 'RETURN';
    if (intent.kind === 'PLACE') {
      if (parcelPresent) {
        event = { type: 'PLACED', ...base };
        order = { orderId: intent.orderId!, status: 'DELIVERED', cellId: intent.cellId };
        message = isReturn
          ? `Return dropped off in cell ${intent.cellId}. Thank you`
          : `Parcel placed in cell ${intent.cellId}. Thank you`;
      } else message = `No parcel detected in cell ${intent.cellId}: the order was not placed`;
    } else if (intent.kind === 'PICKUP' || intent.kind === 'SUBTRACT') {
      if (!parcelPresent) {
        event = { type: intent.kind === 'PICKUP' ? 'PICKED_UP' : 'SUBTRACTED', ...base };
        order = {
          orderId: intent.orderId!,
          status: intent.kind === 'PICKUP' ? 'COMPLETED' : 'SUBTRACTED',
          cellId: intent.cellId,
        };
        message =
          intent.kind === 'SUBTRACT'
            ? `Parcel removed from cell ${intent.cellId}`
            : isReturn
              ? `Return collected from cell ${intent.cellId}`
              : 'Thank you, goodbye';
      } else message = `The parcel is still in cell ${intent.cellId}`;
    } else message = `Cell ${intent.cellId} closed`;
    const events = this.store.resolveIntent(intent.intentId, { events: event ? [event] : [], order });
    if (!events) return;
    this.emit(events);
    this.display.show(message);
    this.cells.refresh();
  }

  private fail(intent: Intent, fault: 'JAMMED' | 'BOARD_SILENT'): OpenOutcome {
    const at = isoNow(this.clock);
    this.log.warn(`cell ${intent.cellId} did not open: ${fault}`);
    if (fault === 'BOARD_SILENT' && (intent.kind === 'PICKUP' || intent.kind === 'SUBTRACT')) {
      // The pulse may have happened and the parcel may be gone: keep the intent open and
      // let the board's next answer decide, rather than guessing "nothing happened".
      this.emit(
        this.store.appendEvent({
          type: 'CELL_FAULT',
          cellId: intent.cellId,
          orderId: intent.orderId ?? undefined,
          at,
          fault,
        }),
      );
      this.track(intent);
      return fault;
    }
    const events = this.store.resolveIntent(intent.intentId, {
      events: [{ type: 'CELL_FAULT', cellId: intent.cellId, orderId: intent.orderId ?? undefined, at, fault }],
      // A silent board is reported through the cell's UNKNOWN state and may come back; a
      // jammed lock stays out of use until someone clears it.
      fault: fault === 'JAMMED' ? { cellId: intent.cellId, fault, at } : undefined,
    });
    if (events) this.emit(events);
    this.cells.refresh();
    return fault;
  }

  private emit(events: LockerEvent | LockerEvent[]): void {
    this.onEvents(Array.isArray(events) ? events : [events]);
  }
}
