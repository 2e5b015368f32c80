import { z } from 'zod';
import { CONTRACT_VERSION } from './version.ts';

/** Every message names the contract it was written against. */
const contract = z.literal(CONTRACT_VERSION);
const timestamp = z.iso.datetime();

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

/** One order as the agent needs it: its three codes, what is still to pay, where it is. */
export const SyncOrder = z.object({
    orderId: z.string().min(1),
    codes: z.object({ DOWN: LockerCode, UP: LockerCode, SUBTRACT: LockerCode }),
    /** Unpaid remainder in minor units; the parcel is not handed out while it is > 0. */
    notPaidAmount: z.number().int().nonnegative(),
    status: OrderStatus,
    /** Size the company asked for; absent = any size fits. */
    cellSize: CellSize.optional(),
    /** Set by the cloud once it knows where the parcel is (after PLACED). */
    cellId: z.string().min(1).nullable().optional(),
});
export type SyncOrder = z.infer<typeof SyncOrder>;

/**
 * cloud → agent: `lockers/{id}/sync`. `full` replaces the store; otherwise a delta: what changed
 * after version `since`, bringing the agent to `version`. An agent holding less than `since`
 * would miss changes: it refuses the delta and announces its version again (connection).
 */
export const SyncMessage = z.object({
    v: contract,
    version: z.number().int().nonnegative(),
    full: z.boolean(),
    since: z.number().int().nonnegative().optional(),
    upserts: z.array(SyncOrder),
    removals: z.array(z.string().min(1)),
});
export type SyncMessage = z.infer<typeof SyncMessage>;

/** agent → cloud, retained, also the Last Will. */
export const ConnectionMessage = z.object({
    v: contract,
    online: z.boolean(),
    agentVersion: z.string(),
    syncVersion: z.number().int().nonnegative(),
    at: timestamp,
});
export type ConnectionMessage = z.infer<typeof ConnectionMessage>;

export const CellState = z.enum(['OK', 'UNKNOWN', 'BROKEN']);
export type CellState = z.infer<typeof CellState>;

export const CellReport = z.object({
    cellId: z.string(),
    size: CellSize,
    /** null while the board does not answer: never guess "closed". */
    lockClosed: z.boolean().nullable(),
    parcelPresent: z.boolean().nullable(),
    state: CellState,
});
export type CellReport = z.infer<typeof CellReport>;

/** agent → cloud, retained, on change. */
export const CellsMessage = z.object({ v: contract, at: timestamp, cells: z.array(CellReport) });
export type CellsMessage = z.infer<typeof CellsMessage>;

export const EventType = z.enum(['PLACED', 'PICKED_UP', 'SUBTRACTED', 'CODE_REJECTED', 'LOCKOUT', 'DOOR_LEFT_OPEN', 'CELL_FAULT']);
export type EventType = z.infer<typeof EventType>;

export const RejectReason = z.enum(['UNKNOWN_CODE', 'WRONG_STATE', 'NOT_PAID', 'NO_FREE_CELL', 'BUSY']);
export type RejectReason = z.infer<typeof RejectReason>;

/** agent → cloud: `lockers/{id}/events`. Applied once by eventId; seq orders one locker's events. */
export const LockerEvent = z.object({
    v: contract,
    eventId: z.string().min(1),
    seq: z.number().int().positive(),
    type: EventType,
    orderId: z.string().optional(),
    cellId: z.string().optional(),
    at: timestamp,
    /** CODE_REJECTED: why; the code itself is never sent in full. */
    reason: RejectReason.optional(),
    maskedCode: z.string().optional(),
    /** LOCKOUT: until when the keypad ignores input. */
    until: timestamp.optional(),
    /** CELL_FAULT: what was seen (JAMMED, BOARD_SILENT). */
    fault: z.enum(['JAMMED', 'BOARD_SILENT']).optional(),
    /** Set when the event came from a command (staff OPEN_CELL). */
    commandId: z.string().optional(),
});
export type LockerEvent = z.infer<typeof LockerEvent>;

/** cloud → agent: the event is committed; the agent may drop it from its outbox. */
export const AckMessage = z.object({ v: contract, eventId: z.string().min(1) });
export type AckMessage = z.infer<typeof AckMessage>;

const commandBase = { v: contract, commandId: z.string().min(1) };
/** cloud → agent: `lockers/{id}/commands`; a redelivered commandId is executed only once. */
export const CommandMessage = z.discriminatedUnion('type', [
    /** Staff subtraction: open the order's cell so the parcel can be taken back. */
    z.object({
        ...commandBase,
        type: z.literal('OPEN_CELL'),
        cellId: z.string().min(1),
        orderId: z.string().min(1).optional(),
        /** A cell must not spring open hours after staff asked and left: later, it is refused. */
        expiresAt: timestamp.optional(),
    }),
    /** Ask the agent to publish its syncVersion again so the cloud resends what changed. */
    z.object({ ...commandBase, type: z.literal('RESYNC') }),
]);
export type CommandMessage = z.infer<typeof CommandMessage>;

/** agent → cloud: `lockers/{id}/responses`, same commandId, `{ status, data | error }`. */
export const ResponseMessage = z.discriminatedUnion('status', [
    z.object({ v: contract, commandId: z.string().min(1), status: z.literal('ok'), data: z.record(z.string(), z.unknown()).optional() }),
    z.object({ v: contract, commandId: z.string().min(1), status: z.literal('error'), error: z.string() }),
]);
export type ResponseMessage = z.infer<typeof ResponseMessage>;
