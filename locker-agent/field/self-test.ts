/**
 * The technician's self-test: every cell's lock opened on its own, one at a time, and its door
 * watched open and shut again. Runs with the agent service stopped (it needs the bus); cells
 * with a parcel inside stay shut unless `all`. Status reads only in between, one unlock per
 * cell, never repeated.
 */
import type { SelfTestResult } from '../../shared/mqtt/index.ts';
import type { BoardStatus, LockBus } from '../boards/lock-bus.ts';
import { sleep, type Clock } from '../clock.ts';
import type { CellConfig } from '../config.ts';

export interface SelfTestOptions {
  /** open cells with a parcel inside too */
  all: boolean;
  /** the hook must read open this long after the unlock, or the lock is jammed */
  unlockConfirmMs: number;
  /** how long the technician has to shut each door */
  closeTimeoutMs: number;
  /** pause between status reads while waiting */
  pollMs: number;
}

type Wait = { status: BoardStatus } | { silent: true } | { timedOut: true };

export class SelfTest {
  constructor(
    private readonly bus: LockBus,
    private readonly clock: Clock,
    private readonly options: SelfTestOptions,
    /** what the technician must do now (a door to shut) */
    private readonly say: (line: string) => void,
  ) {}

  async run(cells: readonly CellConfig[]): Promise<SelfTestResult[]> {
    const results: SelfTestResult[] = [];
    for (const cell of cells) {
      const result = await this.testCell(cell);
      this.say(`cell ${cell.cellId}: ${result.outcome}${result.detail ? ` (${result.detail})` : ''}`);
      results.push(result);
    }
    return results;
  }

  private async testCell(cell: CellConfig): Promise<SelfTestResult> {
    const base = { cellId: cell.cellId, board: cell.board, lock: cell.lock };
    const closed = (s: BoardStatus) => s.closed[cell.lock - 1];
    const before = await this.bus.readStatus(cell.board);
    if (!before) return { ...base, outcome: 'NO_ANSWER', detail: `board ${cell.board} does not answer` };
    if (before.parcel[cell.lock - 1] && !this.options.all)
      return { ...base, outcome: 'SKIPPED', detail: 'a parcel is inside' };
    if (!closed(before)) {
      this.say(`cell ${cell.cellId} reads open before the test: close its door`);
      const shut = await this.waitFor(cell.board, closed, this.options.closeTimeoutMs);
      if ('silent' in shut) return { ...base, outcome: 'NO_ANSWER', detail: `board ${cell.board} stopped answering` };
      if ('timedOut' in shut)
        return { ...base, outcome: 'SENSOR_STUCK', detail: 'the hook read open before the test and never closed' };
    }
    const unlock = await this.bus.unlock(cell.board, cell.lock);
    if (!unlock.ok) return { ...base, outcome: 'NO_ANSWER', detail: 'no answer to the unlock' };
    const opened = await this.waitFor(cell.board, (s) => !closed(s), this.options.unlockConfirmMs);
    if ('silent' in opened) return { ...base, outcome: 'NO_ANSWER', detail: `board ${cell.board} stopped answering` };
    if ('timedOut' in opened)
      return {
        ...base,
        outcome: 'JAMMED',
        detail: `the hook did not read open within ${this.options.unlockConfirmMs} ms`,
      };
    this.say(`cell ${cell.cellId} is open: close its door now`);
    const shut = await this.waitFor(cell.board, closed, this.options.closeTimeoutMs);
    if ('silent' in shut) return { ...base, outcome: 'NO_ANSWER', detail: `board ${cell.board} stopped answering` };
    if ('timedOut' in shut)
      return {
        ...base,
        outcome: 'SENSOR_STUCK',
        detail: `the hook still read open ${Math.round(this.options.closeTimeoutMs / 1000)} s after opening: if the door is shut, its switch is stuck`,
      };
    return { ...base, outcome: 'OK' };
  }

  private async waitFor(board: number, predicate: (s: BoardStatus) => boolean, ms: number): Promise<Wait> {
    const deadline = this.clock.now() + ms;
    for (;;) {
      const status = await this.bus.readStatus(board);
      if (!status) return { silent: true };
      if (predicate(status)) return { status };
      if (this.clock.now() >= deadline) return { timedOut: true };
      await sleep(this.clock, this.options.pollMs);
    }
  }
}

/** One line per cell, faults first, for the technician's screen. */
export function formatSelfTest(results: readonly SelfTestResult[]): string {
  const faults = results.filter((r) => r.outcome !== 'OK' && r.outcome !== 'SKIPPED');
  const lines = [
    `self-test: ${results.length} cell(s), ${results.filter((r) => r.outcome === 'OK').length} OK, ${faults.length} fault(s), ${results.filter((r) => r.outcome === 'SKIPPED').length} skipped`,
  ];
  for (const r of [...faults, ...results.filter((x) => !faults.includes(x))]) {
    lines.push(
      `  cell ${r.cellId.padEnd(4)} board ${r.board} lock ${String(r.lock).padStart(2)}  ${r.outcome.padEnd(12)} ${r.detail ?? ''}`.trimEnd(),
    );
  }
  return lines.join('\n');
}
