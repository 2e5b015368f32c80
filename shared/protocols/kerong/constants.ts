/**
 * Kerong KR-CU16 protocol table (RS-485, 19200 8N1 by default).
 * Kept apart from the codec so the simulator and the driver read the same numbers.
 */
export const STX = 0x02;
export const ETX = 0x03;

export enum KerongCommand {
  /** Request: read the hook and IR sensors of one board. */
  ReadStatus = 0x30,
  /** Request: pulse one lock open. */
  Unlock = 0x31,
  /** Reply: the 9-byte status frame (answers both ReadStatus and Unlock, see frame.ts). */
  Status = 0x35,
}

/** Request frames: STX ADDR CMD ETX SUM. */
export const REQUEST_LENGTH = 5;
/** Status reply: STX ADDR 0x35 HOOK1-8 HOOK9-16 IR1-8 IR9-16 ETX SUM. */
export const STATUS_LENGTH = 9;
export const LOCKS_PER_BOARD = 16;
/** The board address is one nibble. */
export const MAX_BOARD_ADDRESS = 0x0f;

/** ADDR's high nibble: at most 16 boards (0-15) share one bus. */
export const MAX_BOARDS_PER_BUS = MAX_BOARD_ADDRESS + 1;

export const DEFAULT_BAUD_RATE = 19200;

/** Frame length implied by the command byte, or undefined for an unknown command. */
export function frameLength(cmd: number): number | undefined {
  switch (cmd) {
    case KerongCommand.ReadStatus:
    case KerongCommand.Unlock:
      return REQUEST_LENGTH;
    case KerongCommand.Status:
      return STATUS_LENGTH;
    default:
      return undefined;
  }
}
