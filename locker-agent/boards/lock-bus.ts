import { EventEmitter } from 'node:events';

/** What one board reports: per lock 1..16, hook closed and parcel present. */
export interface BoardStatus {
  board: number;
  closed: readonly boolean[];
  parcel: readonly boolean[];
  at: number;
}

export type UnlockResult =
  /** The board answered the unlock command (the door may still take a moment to release). */
  | { ok: true }
  /** No answer: the pulse may or may not have happened, so the caller must read the status
   *  before deciding; the command is never repeated on its own. */
  | { ok: false; reason: 'NO_REPLY' | 'BOARD_OFFLINE' | 'CLOSED' };

export interface LockBusEvents {
  status: [BoardStatus];
  /** A board stopped answering: its cells are unknown, not closed. */
  boardOffline: [number];
  boardOnline: [number];
}

/**
 * The hardware contract of the agent: one or more lock boards behind one bus. The Kerong driver
 * is one implementation; a test double or another vendor's board can be another.
 */
export abstract class LockBus extends EventEmitter<LockBusEvents> {
  abstract readonly boards: readonly number[];
  /** Start polling board status in the background (emits `status`). */
  abstract start(): void;
  abstract stop(): Promise<void>;
  /** Pulse one lock. Jumps ahead of queued status reads. */
  abstract unlock(board: number, lock: number): Promise<UnlockResult>;
  /** Read one board now, with retries; undefined when it does not answer. */
  abstract readStatus(board: number): Promise<BoardStatus | undefined>;
  abstract isOnline(board: number): boolean;
  /** Latest status seen for a board, if it is online. */
  abstract lastStatus(board: number): BoardStatus | undefined;
}
