import { z } from 'zod';
import { MQTT_LIMITS } from './limits.ts';
import { CONTRACT_VERSION } from './version.ts';

/** Every message names the contract it was written against. */
const contract = z.literal(CONTRACT_VERSION);
const timestamp = z.iso.datetime();

/**
 * Ids travel into acks, columns, log lines and the operator's screen: letters, digits, `_` and
 * `-` only (no control characters, which PostgreSQL refuses in text), and short.
 */
export const MessageId = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'an id is letters, digits, _ and -')
  .min(1)
  .max(MQTT_LIMITS.idLength);
/** A cell as its locker names it: its number, as text (the same rule as an id, shorter). */
export const CellName = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'a cell name is letters, digits, _ and -')
  .min(1)
  .max(MQTT_LIMITS.cellIdLength);
/** Free text from a device: printable, bounded. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters');
const counter = z.number().int().nonnegative().max(MQTT_LIMITS.counter);

export const CellSize = z.enum(['S', 'M', 'L', 'XL']);
export type CellSize = z.infer<typeof CellSize>;
/** Smallest first: placement tries the smallest cell that fits. */
export const CELL_SIZES: readonly CellSize[] = CellSize.options;

export const OrderStatus = z.enum(['CREATED', 'DELIVERED', 'COMPLETED', 'SUBTRACTED']);
export type OrderStatus = z.infer<typeof OrderStatus>;

/** Locker codes are 4 digits (keypad input). */
export const LockerCode = z.string().regex(/^\d{4}$/, 'a code is 4 digits');

export const CodeKind = z.enum(['DOWN', 'UP', 'SUBTRACT']);
export type CodeKind = z.infer<typeof CodeKind>;

/**
 * What the order carries through the locker: a DELIVERY (the spec's flow: a courier places, the
 * recipient collects) or a RETURN (the sender drops off with the DOWN code, a courier collects
 * with the UP code). The codes work the same either way; the kind changes only what the agent
 * tells the person at the door.
 */
export const OrderKind = z.enum(['DELIVERY', 'RETURN']);
export type OrderKind = z.infer<typeof OrderKind>;

/** One order as the agent needs it: its three codes, what is still to pay, where it is. */
export const SyncOrder = z.object({
  orderId: MessageId,
  codes: z.object({ DOWN: LockerCode, UP: LockerCode, SUBTRACT: LockerCode }),
  /** Unpaid remainder in minor units; the parcel is not handed out while it is > 0. */
  notPaidAmount: z.number().int().nonnegative(),
  status: OrderStatus,
  /** Size the company asked for; absent = any size fits. */
  cellSize: CellSize.optional(),
  /** Set by the cloud once it knows where the parcel is (after PLACED). */
  cellId: CellName.nullable().optional(),
  /** End of the storage period, set by the cloud for a placed (DELIVERED) order; an extension moves it. */
  storageEnd: timestamp.optional(),
  /**
   * Sent only for a RETURN (absent = DELIVERY), so a delivery's message is unchanged. An agent
   * that ignores it runs a return as a delivery, which opens the same cells on the same codes.
   */
  kind: OrderKind.optional(),
});
export type SyncOrder = z.infer<typeof SyncOrder>;

/**
 * cloud → agent: `lockers/{id}/sync`. `full` replaces the store; otherwise a delta: what changed
 * after version `since`, bringing the agent to `version`. An agent holding less than `since`
 * would miss changes: it refuses the delta and announces its version again (connection).
 */
export const SyncMessage = z.object({
  v: contract,
  version: counter,
  full: z.boolean(),
  since: counter.optional(),
  upserts: z.array(SyncOrder),
  removals: z.array(MessageId),
});
export type SyncMessage = z.infer<typeof SyncMessage>;

/** agent → cloud, retained, also the Last Will. */
export const ConnectionMessage = z.object({
  v: contract,
  online: z.boolean(),
  agentVersion: text(MQTT_LIMITS.agentVersionLength),
  syncVersion: counter,
  at: timestamp,
});
export type ConnectionMessage = z.infer<typeof ConnectionMessage>;

export const CellState = z.enum(['OK', 'UNKNOWN', 'BROKEN']);
export type CellState = z.infer<typeof CellState>;

export const CellReport = z.object({
  cellId: CellName,
  size: CellSize,
  /** null while the board does not answer: never guess "closed". */
  lockClosed: z.boolean().nullable(),
  parcelPresent: z.boolean().nullable(),
  state: CellState,
});
export type CellReport = z.infer<typeof CellReport>;

/** agent → cloud, retained, on change. */
export const CellsMessage = z.object({
  v: contract,
  at: timestamp,
  cells: z.array(CellReport).max(MQTT_LIMITS.cellsPerReport),
});
export type CellsMessage = z.infer<typeof CellsMessage>;

/** TAMPER: a door read open that no command of the agent had opened (forced, or a latch that let go). */
export const EventType = z.enum([
  'PLACED',
  'PICKED_UP',
  'SUBTRACTED',
  'CODE_REJECTED',
  'LOCKOUT',
  'DOOR_LEFT_OPEN',
  'CELL_FAULT',
  'TAMPER',
]);
export type EventType = z.infer<typeof EventType>;

export const RejectReason = z.enum(['UNKNOWN_CODE', 'WRONG_STATE', 'NOT_PAID', 'NO_FREE_CELL', 'BUSY']);
export type RejectReason = z.infer<typeof RejectReason>;

/** agent → cloud: `lockers/{id}/events`. Applied once by eventId; seq orders one locker's events. */
export const LockerEvent = z.object({
  v: contract,
  eventId: MessageId,
  seq: counter.positive(),
  type: EventType,
  orderId: MessageId.optional(),
  cellId: CellName.optional(),
  at: timestamp,
  /** CODE_REJECTED: why; the code itself is never sent in full. */
  reason: RejectReason.optional(),
  maskedCode: text(MQTT_LIMITS.maskedCodeLength).optional(),
  /** LOCKOUT: until when the keypad ignores input. */
  until: timestamp.optional(),
  /** CELL_FAULT: what was seen (JAMMED, BOARD_SILENT). */
  fault: z.enum(['JAMMED', 'BOARD_SILENT']).optional(),
  /** Set when the event came from a command (staff OPEN_CELL). */
  commandId: MessageId.optional(),
});
export type LockerEvent = z.infer<typeof LockerEvent>;

/** cloud → agent: the event is committed; the agent may drop it from its outbox. */
export const AckMessage = z.object({ v: contract, eventId: MessageId });
export type AckMessage = z.infer<typeof AckMessage>;

const commandBase = { v: contract, commandId: MessageId };
/** cloud → agent: `lockers/{id}/commands`; a redelivered commandId is executed only once. */
export const CommandMessage = z.discriminatedUnion('type', [
  /** Staff subtraction: open the order's cell so the parcel can be taken back. */
  z.object({
    ...commandBase,
    type: z.literal('OPEN_CELL'),
    cellId: CellName,
    orderId: MessageId.optional(),
    /** A cell must not spring open hours after staff asked and left: later, it is refused. */
    expiresAt: timestamp.optional(),
  }),
  /** Ask the agent to publish its syncVersion again so the cloud resends what changed. */
  z.object({ ...commandBase, type: z.literal('RESYNC') }),
]);
export type CommandMessage = z.infer<typeof CommandMessage>;

/** agent → cloud: `lockers/{id}/responses`, same commandId, `{ status, data | error }`. */
export const ResponseMessage = z.discriminatedUnion('status', [
  z.object({
    v: contract,
    commandId: MessageId,
    status: z.literal('ok'),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({ v: contract, commandId: MessageId, status: z.literal('error'), error: text(MQTT_LIMITS.errorLength) }),
]);
export type ResponseMessage = z.infer<typeof ResponseMessage>;
