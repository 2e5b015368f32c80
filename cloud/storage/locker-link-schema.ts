/**
 * Tables of the locker sync (migration 007_sync). Per locker: a version bumped by every change
 * to its orders, with one change row per order; what its agent last said about itself; the
 * events it sent (applied exactly once by event id); staff commands waiting for it.
 */

/** One row per locker with any change. */
export interface LockerSyncTable {
  postomatId: string;
  /** the latest change to the locker's orders */
  version: number;
  /** the highest version some cloud process has published as a delta (at least once) */
  publishedVersion: number;
  /** change rows at or below this version were pruned: an agent older than it gets a full snapshot */
  floor: number;
  /** a process is publishing this locker's delta until then (migration 019, publish-claim.ts) */
  publishClaimedUntil?: string | null;
}

/**
 * Version `version` of a locker had been published by `at` (migration 012, written by the
 * retention pruner): change rows carry no time, so this is how their age is known.
 */
export interface LockerSyncCheckpointTable {
  postomatId: string;
  version: number;
  at: string;
}

/** The latest change of one order at one locker (creation, payment, status, moved away). */
export interface LockerSyncChangeTable {
  postomatId: string;
  orderId: string;
  version: number;
}

/** What the locker's agent last reported: its connection (retained + Last Will) and its cells. */
export interface LockerLinkTable {
  postomatId: string;
  online: number; // 0 | 1
  agentVersion: string | null;
  /** the sync version the agent announced on its latest connection */
  reportedVersion: number | null;
  /** `at` of the latest connection message, no later than the cloud's clock (a Last Will dated before the online connection held is ignored) */
  connectionAt: string | null;
  /** JSON array of the agent's cell reports */
  cells: string | null;
  cellsAt: string | null;
  updatedAt: string;
}

/**
 * APPLIED: it moved its order; STORED: kept for the operator; REJECTED: never applicable (why
 * in `note`); FAILED: the cloud could not apply it after repeated attempts (docs/locker-sync.md).
 * REJECTED and FAILED events about an order also raise an alarm (locker_alarm).
 */
export const LOCKER_EVENT_OUTCOMES = ['APPLIED', 'STORED', 'REJECTED', 'FAILED'] as const;
export type LockerEventOutcome = (typeof LOCKER_EVENT_OUTCOMES)[number];

/** Every event a locker sent, once: the key makes a redelivered event a no-op. */
export interface LockerEventTable {
  postomatId: string;
  eventId: string;
  seq: number;
  type: string;
  orderId: string | null;
  /** the cell as the agent names it (its number) */
  cellId: string | null;
  /** reason (CODE_REJECTED), fault (CELL_FAULT) or until (LOCKOUT); never a code */
  detail: string | null;
  at: string;
  receivedAt: string;
  outcome: LockerEventOutcome;
  /** why it was rejected */
  note: string | null;
}

export const COMMAND_STATES = ['PENDING', 'SENT', 'DONE', 'FAILED', 'EXPIRED'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];

/** A staff command for a locker, written by whoever asks (the operator CLI), sent by a running cloud. */
export interface LockerCommandTable {
  id: string;
  postomatId: string;
  orderId: string | null;
  type: string;
  /** the cell as the agent names it (its number) */
  cellId: string;
  state: CommandState;
  createdAt: string;
  expiresAt: string;
  sentAt: string | null;
  attempts: number;
  answeredAt: string | null;
  error: string | null;
}

/**
 * Attempts at an event that failed with an error the cloud did not expect (migration 016):
 * counted across processes and restarts, so the agent's resending ends once the count reaches
 * LOCKER_EVENT_MAX_ATTEMPTS. Deleted when the event is finally recorded.
 */
export interface LockerEventAttemptTable {
  postomatId: string;
  eventId: string;
  attempts: number;
  firstAt: string;
  lastAt: string;
  /** the last error's message, shortened; never a code (events carry none) */
  lastError: string;
}

/**
 * What the operator must look at (migration 016), shown by `locker status` and `locker alarms`
 * until resolved: an order event the cloud would not or could not apply (a parcel may be
 * locked in a cell while its order says otherwise), a cell map that differs from the agent's.
 */
export const LOCKER_ALARM_KINDS = [
  'EVENT_REJECTED',
  'EVENT_FAILED',
  'WITHDRAWN_ORDER_PLACED',
  'CELL_MAP_MISMATCH',
  // From the locker's own events (issue 20): a door opened without a command, a door left open,
  // a cell fault (jammed lock, silent board), and a board that stopped answering (health).
  'TAMPER',
  'DOOR_LEFT_OPEN',
  'CELL_FAULT',
  'BOARD_SILENT',
] as const;
export type LockerAlarmKind = (typeof LOCKER_ALARM_KINDS)[number];

export interface LockerAlarmTable {
  id: string;
  postomatId: string;
  kind: LockerAlarmKind;
  /** the event it is about (event alarms: one per event) */
  eventId: string | null;
  orderId: string | null;
  /** the cell as the agent names it (its number) */
  cellId: string | null;
  detail: string;
  raisedAt: string;
  /** set by the operator (`locker alarm resolve`) or, for a cell map, by a matching report */
  resolvedAt: string | null;
  resolution: string | null;
}
