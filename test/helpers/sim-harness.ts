import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CONTRACT_VERSION,
  type CellSize,
  type EventType,
  type LockerEvent,
  type SyncMessage,
  type SyncOrder,
} from '../../shared/mqtt/index.ts';
import type { CellConfig } from '../../locker-agent/config.ts';
import { SimLocker, type SimLockerOptions } from '../../hardware-sim/locker.ts';

/** Guard against a hang, not a timing assertion: generous on purpose. */
const GUARD_MS = 10_000;

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Board 0 with cells 1..n, sizes in the given order. */
export function cellsOf(sizes: CellSize[], board = 0): CellConfig[] {
  return sizes.map((size, i) => ({ cellId: `${board}-${i + 1}`, board, lock: i + 1, size }));
}

export function order(orderId: string, codes: [string, string, string], extra: Partial<SyncOrder> = {}): SyncOrder {
  return {
    orderId,
    codes: { DOWN: codes[0], UP: codes[1], SUBTRACT: codes[2] },
    notPaidAmount: 0,
    status: 'CREATED',
    ...extra,
  };
}

export function syncOf(orders: SyncOrder[], version = 1, full = true): SyncMessage {
  return { v: CONTRACT_VERSION, version, full, upserts: orders, removals: [] };
}

export async function startLocker(
  opts: Partial<SimLockerOptions> & Pick<SimLockerOptions, 'cells' | 'transport'>,
): Promise<{ locker: SimLocker; close: () => Promise<void> }> {
  const dir = tempDir('locker');
  const boards = opts.boards ?? [...new Set(opts.cells.map((c) => c.board))];
  const locker = new SimLocker({ id: 'L1', dir: dir.path, boards, unlockTimeMs: 20, ...opts });
  try {
    await locker.start();
  } catch (err) {
    await locker.close().catch(() => undefined);
    dir.remove();
    throw err;
  }
  return {
    locker,
    close: async () => {
      await locker.close();
      dir.remove();
    },
  };
}

async function until<T>(
  what: string,
  check: () => T | undefined,
  subscribe: (wake: () => void) => () => void,
): Promise<T> {
  const found = check();
  if (found !== undefined) return found;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for ${what}`));
    }, GUARD_MS);
    const unsubscribe = subscribe(() => {
      const v = check();
      if (v === undefined) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(v);
    });
  });
}

/** The first event of this type (and matching `match`) seen since the locker started. */
export function waitForEvent(
  locker: SimLocker,
  type: EventType,
  match: (e: LockerEvent) => boolean = () => true,
): Promise<LockerEvent> {
  return until(
    `${type} event`,
    () => locker.events.find((e) => e.type === type && match(e)),
    (wake) => {
      locker.agent.on('event', wake);
      return () => locker.agent.off('event', wake);
    },
  );
}

/** The first display line after `from` lines that matches. */
export function waitForDisplay(locker: SimLocker, pattern: RegExp, from = 0): Promise<string> {
  return until(
    `display ${pattern}`,
    () => locker.displayLines.slice(from).find((l) => pattern.test(l)),
    (wake) => {
      locker.agent.on('display', wake);
      return () => locker.agent.off('display', wake);
    },
  );
}

/** Polls the simulated hardware (door state has no event of its own). */
export function waitForHardware<T>(what: string, check: () => T | undefined): Promise<T> {
  return until(what, check, (wake) => {
    const timer = setInterval(wake, 5);
    return () => clearInterval(timer);
  });
}

/** Waits for the door of a cell to spring open after an unlock. */
export function waitForDoorOpen(locker: SimLocker, cellId: string): Promise<true> {
  return waitForHardware(`door of ${cellId} open`, () =>
    locker.hardwareCells().find((c) => c.cellId === cellId)?.doorClosed === false ? true : undefined,
  );
}

/** The first cell whose door is open. */
export function waitForAnyDoorOpen(locker: SimLocker): Promise<string> {
  return waitForHardware('a door to open', () => locker.hardwareCells().find((c) => !c.doorClosed)?.cellId);
}

/** Types a code and waits until the agent says which cell it opened (as a person would). */
export async function typeAndWaitOpen(locker: SimLocker, code: string): Promise<string> {
  const from = locker.displayLines.length;
  await locker.typeCode(code);
  const line = await waitForDisplay(locker, /^Cell (\S+) is open/, from);
  return /^Cell (\S+) is open/.exec(line)![1];
}

/** Real timers, but `now()` can be moved forward: lockout windows pass without waiting. */
export class OffsetClock {
  offset = 0;
  now = () => Date.now() + this.offset;
  setTimeout = (fn: () => void, ms: number): unknown => setTimeout(fn, ms);
  clearTimeout = (handle: unknown) => clearTimeout(handle as NodeJS.Timeout);
  advance(ms: number): void {
    this.offset += ms;
  }
}
